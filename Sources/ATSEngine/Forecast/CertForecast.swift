import ATSPolicy
import ATSTrust
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

extension ChainVerifier {
    /// `cert --forecast`: the chain judged now (as `judge`), and its forecast: at each candidate
    /// instant within the horizon (the certificates' validity, the SCTs' timestamps, the CT log
    /// dates of the leaf's SCTs), the chain's judgement with its trust evaluation as it reads at
    /// that instant (`TrustEvaluation.judged(at:served:)`, as the diagnostics' forecast does) and
    /// Apple's rules at that instant, kept when trusted or not differs from the instant before.
    /// The verdict is `pass` (trusted) or `no-exception` (not: no dictionary changes the trust
    /// of a chain).
    ///
    /// The state one second before a candidate instant is the state at the candidate before it
    /// (or now): the instants are whole seconds and nothing changes between two of them. So each
    /// instant is judged once, in order, with no new verifier and no new path validation: each
    /// instant used to build a prober (reading the anchors again) and run OpenSSL's path
    /// validation over the whole chain, twice, which made a 256-certificate chain's forecast
    /// quadratic (issue 40, item 10: 19 s of CPU against 0.1 s without it).
    package func judgeWithForecast(_ chain: CertificateChain, name: String, horizonSeconds: Int) async -> (ChainJudgement, TargetForecast) {
        let (facts, trust) = await evaluate(chain, name: name)
        let logs = ctLogs
        let now = ChainJudgement(given: facts, trust: trust, name: name, rules: ruleSet.certificateRules, logs: logs)
        // The judgement's own instant (a whole second, `RunContext.instant`): the forecast's
        // "now" is the verdict's.
        let from = instant
        let end = from.addingTimeInterval(Double(horizonSeconds))
        let candidates = ForecastCandidates(chains: [(facts, trust, [])], ctLogs: logs, distrust: .apple, within: from, end)
        func state(_ judgement: ChainJudgement) -> ForecastState {
            ForecastState(verdict: judgement.trusted ? .pass : .noException, exception: [])
        }
        let nowState = state(now)
        var previous = nowState
        var changes: [ForecastChange] = []
        for (instant, causes) in candidates.verdictInstants {
            let then = state(ChainJudgement(given: facts, trust: trust.judged(at: instant, served: facts), name: name,
                                            rules: ruleSet.certificateRules, logs: logs))
            if then != previous { changes.append(ForecastChange(at: instant, before: previous, after: then, causes: causes)) }
            previous = then
        }
        let renewal = RenewalJudge(rules: ruleSet.certificateRules, logs: logs, distrust: .apple, chain: facts, trust: trust,
                                   deliveredSCTs: [], serverName: name)
            .check(at: from, until: end, candidates: candidates)
        return (now, TargetForecast(from: from, horizonSeconds: horizonSeconds, now: nowState, changes: changes, renewal: renewal))
    }
}

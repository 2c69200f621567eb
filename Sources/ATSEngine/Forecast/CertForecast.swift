import ATSPolicy
import ATSProbe
import ATSTrust
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

extension ChainJudgement {
    /// `cert --forecast`: the chain judged now (as `judge`), and its forecast: at each candidate
    /// instant within the horizon (the certificates' validity, the CT log dates of the leaf's
    /// SCTs) and one second before, the same judgement made again with a prober whose date is
    /// that instant (`--at`), kept when trusted or not differs. A chain file is offline, so the
    /// judgement itself is re-run (OpenSSL's path validation included). The verdict is `pass`
    /// (trusted) or `no-exception` (not: no dictionary changes the trust of a chain).
    public static func judgeWithForecast(_ chain: ChainFile.Chain, name: String, prober: Prober, ruleSet: RuleSet, logs: CTLogList,
                                         timeout: Double, horizonSeconds: Int) async -> (ChainJudgement, TargetForecast) {
        let (facts, trust) = await prober.evaluate(chain: chain, name: name, timeout: timeout)
        let now = ChainJudgement(given: facts, trust: trust, name: name, rules: ruleSet.certificateRules, logs: logs)
        let from = Date(timeIntervalSince1970: prober.evaluationDate.timeIntervalSince1970.rounded(.down))
        let end = from.addingTimeInterval(Double(horizonSeconds))
        let candidates = ForecastCandidates(chains: [(facts, trust, [])], ctLogs: logs, distrust: .apple, within: from, end)
        func state(_ judgement: ChainJudgement) -> ForecastState {
            ForecastState(verdict: judgement.trusted ? .pass : .noException, exception: [])
        }
        func state(at date: Date) async -> ForecastState? {
            var options = prober.options
            options.evaluationDate = date
            guard let then = try? Prober(options: options, runtime: prober.runtime) else { return nil }
            return state(await judge(chain, name: name, prober: then, ruleSet: ruleSet, logs: logs, timeout: timeout))
        }
        var changes: [ForecastChange] = []
        for (instant, causes) in candidates.verdictInstants {
            guard let before = await state(at: instant.addingTimeInterval(-1)), let after = await state(at: instant) else { continue }
            if before != after { changes.append(ForecastChange(at: instant, before: before, after: after, causes: causes)) }
        }
        let renewal = RenewalJudge(rules: ruleSet.certificateRules, logs: logs, distrust: .apple, chain: facts, trust: trust,
                                   deliveredSCTs: [], serverName: name)
            .check(at: from, until: end, candidates: candidates)
        return (now, TargetForecast(from: from, horizonSeconds: horizonSeconds, now: state(now), changes: changes, renewal: renewal))
    }
}

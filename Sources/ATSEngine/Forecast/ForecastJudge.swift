import ATSAdvice
import ATSPolicy
import ATSProbe
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

/// The forecast of one run, from its recorded handshakes: the candidate instants (each
/// certificate's notAfter + 1 s and notBefore, each CT log date of the leaf's SCTs, each distrust
/// date of a root in the path) within the horizon; at each, and one second before, every test is
/// judged again by the run's own `LoadWalk` over the recorded hops, with the trust evaluation at
/// that instant (`TrustEvaluation.judged(at:served:)`), and the exception by `ExceptionAdvisor`;
/// an instant is kept when the two judgements differ.
extension DiagnosticsRun {
    @inline(never)
    /// `now` is the run's own verdict and exception (what its report says).
    func forecast(horizonSeconds: Int, tlsPortSuggestion: ExceptionSuggestion?, now: ForecastState) -> TargetForecast {
        let from = Date(timeIntervalSince1970: runner.prober.evaluationDate.timeIntervalSince1970.rounded(.down))
        let end = from.addingTimeInterval(Double(horizonSeconds))
        let candidates = ForecastCandidates(observations: successfulObservations, ctLogs: runner.prober.options.ctLogs,
                                            distrust: runner.options.distrust, within: from, end)
        var cache: [Date: ForecastState] = [:]
        func state(_ date: Date) -> ForecastState {
            if let known = cache[date] { return known }
            let judged = judgedState(at: date, tlsPortSuggestion: tlsPortSuggestion)
            cache[date] = judged
            return judged
        }
        var changes: [ForecastChange] = []
        for (instant, causes) in candidates.verdictInstants {
            let before = state(instant.addingTimeInterval(-1))
            let after = state(instant)
            if before != after { changes.append(ForecastChange(at: instant, before: before, after: after, causes: causes)) }
        }
        let renewal = successfulObservations.first.flatMap {
            RenewalJudge(options: runner.options, logs: runner.prober.options.ctLogs, observation: $0).check(at: from, until: end, candidates: candidates.renewalInstants)
        }
        return TargetForecast(from: from, horizonSeconds: horizonSeconds, now: now, changes: changes, renewal: renewal)
    }

    /// The completed handshakes, one per distinct chain (as built) and SCT logs, the default test's first.
    private var successfulObservations: [Observation] {
        var seen = Set<[String]>()
        return observations.compactMap { result -> Observation? in
            guard case .success(let observation) = result else { return nil }
            let key = (observation.trust.path ?? observation.chain).map(\.sha256Fingerprint) + observation.deliveredSCTs.map(\.logID)
            return seen.insert(key).inserted ? observation : nil
        }
    }

    /// The target's verdict and exception at `date`: every test's recorded load judged again.
    private func judgedState(at date: Date, tlsPortSuggestion: ExceptionSuggestion?) -> ForecastState {
        let verdicts = tests.indices.map { replay($0, at: date) }
        let shifted = observations.map { Self.shifted($0, to: date) }
        let suggestion = tlsPortSuggestion ?? ExceptionAdvisor.suggest(host: target.host, results: Array(zip(tests, verdicts)),
                                                                       observations: shifted, ruleSet: runner.options.ruleSet)
        let shownHops = outcomes.prefix(shownCount).compactMap { $0 }.flatMap(\.hops)
        let reachability: DiagnosticsReport.Reachability = shownHops.contains { $0.cleartext != nil }
            ? .answered : DiagnosticsReport.reachability(of: observations)
        let verdict = AuditVerdict(defaultPasses: verdicts.first?.passed ?? false, reachability: reachability, suggestion: suggestion)
        return ForecastState(verdict: verdict, suggestion: suggestion)
    }

    /// Test `index`'s recorded load, judged again at `date` by a fresh `LoadWalk`: each fetch it
    /// asks for is answered with the recorded hop for the same URL (no handshake). A walk that
    /// would go further than the recording (a hop that failed now passing and redirecting) stops there.
    private func replay(_ index: Int, at date: Date) -> Verdict {
        guard let recorded = outcomes[index]?.hops else { return .pass }
        let walk = walk(for: index)
        walk.judgedAt = date
        var cursor = recorded.startIndex
        func nextRecorded(_ url: String, cleartext: Bool) -> HopOutcome? {
            while cursor < recorded.endIndex {
                let hop = recorded[cursor]
                cursor += 1
                let fetched = cleartext ? (hop.cleartext != nil || hop.result != nil) : hop.result != nil
                if hop.url == url && fetched { return hop }
            }
            return nil
        }
        loop: while let fetch = walk.next() {
            switch fetch {
            case .cleartext(let request):
                guard let hop = nextRecorded(request.target.url, cleartext: true) else { break loop }
                if let exchange = hop.cleartext {
                    walk.record(cleartext: .success(exchange))
                } else if case .failure(let failure)? = hop.result {
                    walk.record(cleartext: .failure(failure))
                } else {
                    break loop
                }
            case .firstHop(let request), .redirect(let request):
                guard let hop = nextRecorded(request.target.url, cleartext: false), let result = hop.result else { break loop }
                walk.record(Self.shifted(result, to: date))
            }
        }
        return walk.outcome.verdict
    }

    static func shifted(_ result: ProbeResult, to date: Date) -> ProbeResult {
        guard case .success(var observation) = result else { return result }
        observation.trust = observation.trust.judged(at: date, served: observation.chain)
        return .success(observation)
    }
}

extension AuditVerdict {
    /// The verdict from what decides it: whether default ATS passes, whether anything spoke TLS,
    /// and the exception advice.
    public init(defaultPasses: Bool, reachability: DiagnosticsReport.Reachability, suggestion: ExceptionSuggestion) {
        // The contract's one derivation (ATSContract's AuditVerdict), from the engine's values.
        let exceptionHelps = if case .exception = suggestion { true } else { false }
        self.init(defaultPasses: defaultPasses, reachable: reachability != .unreachable, exceptionHelps: exceptionHelps)
    }
}

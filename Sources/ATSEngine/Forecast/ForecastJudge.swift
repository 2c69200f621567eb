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
/// that instant (`TrustEvaluation.judged(at:served:)`) and Apple's certificate rules at that
/// instant, and the exception by `ExceptionAdvisor`; an instant is kept when the two judgements
/// differ.
///
/// What it costs (docs/forecast.md, "Cost"): the dated inputs, the only part of the judgement that
/// reads the date, are worked out once per distinct served chain and instant
/// (`ForecastInputs.at(_:)`), not once per load; the loads are replayed only for inputs not seen
/// before in this forecast, and not at all at an instant whose inputs equal those one second
/// before (the judgement then cannot change). The run's own judgement is one of those seen: its
/// tests' verdicts are what a replay under the run's own inputs (the recorded trust, Apple's rules
/// at the prober's instant) gives, so an instant whose inputs equal them takes its state from the
/// run's verdicts without replaying a load.
extension DiagnosticsRun {
    @inline(never)
    /// `now` is the run's own verdict and exception (what its report says).
    func forecast(horizonSeconds: Int, tlsPortSuggestion: ExceptionSuggestion?, now: ForecastState) -> TargetForecast {
        // The run's own instant (a whole second): the forecast's "now" is the verdict's.
        let from = runner.prober.evaluationDate
        let end = from.addingTimeInterval(Double(horizonSeconds))
        let successful = successfulObservations
        let candidates = ForecastCandidates(observations: successful, ctLogs: runner.prober.options.ctLogs,
                                            distrust: runner.options.distrust, within: from, end)
        var changes: [ForecastChange] = []
        if !candidates.verdictInstants.isEmpty {
            let inputs = ForecastInputs(run: self)
            // The states judged so far, by their dated inputs (a handful at most: a linear search),
            // the run's own first: its tests' verdicts (`outcomes`; annotating them sharpened reasons,
            // never whether they passed) under the inputs the live walks read.
            let live = inputs.recorded(at: runner.prober.evaluationDate)
            var judged: [(ForecastInputs.Dated, ForecastState)] = [
                (live, state(verdicts: outcomes.map { $0!.verdict }, observations: observations, tlsPortSuggestion: tlsPortSuggestion)),
            ]
            func judgement(_ dated: ForecastInputs.Dated) -> ForecastState {
                if let known = judged.first(where: { $0.0 == dated }) { return known.1 }
                let state = judgedState(dated, inputs: inputs, tlsPortSuggestion: tlsPortSuggestion)
                judged.append((dated, state))
                return state
            }
            for (instant, causes) in candidates.verdictInstants {
                let before = inputs.at(instant.addingTimeInterval(-1))
                let after = inputs.at(instant)
                // The judgement reads the date only through these inputs: equal inputs, equal judgements.
                guard before != after else { continue }
                let stateBefore = judgement(before)
                let stateAfter = judgement(after)
                if stateBefore != stateAfter {
                    changes.append(ForecastChange(at: instant, before: stateBefore, after: stateAfter, causes: causes))
                }
            }
        }
        let renewal = successful.first.flatMap {
            RenewalJudge(options: runner.options, logs: runner.prober.options.ctLogs, observation: $0)
                .check(at: from, until: end, candidates: candidates)
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

    /// The target's verdict and exception under `dated`'s inputs: every test's recorded load judged again.
    private func judgedState(_ dated: ForecastInputs.Dated, inputs: ForecastInputs, tlsPortSuggestion: ExceptionSuggestion?) -> ForecastState {
        let verdicts = tests.indices.map { replay($0, dated: dated, inputs: inputs) }
        let shifted = observations.indices.map { dated.shifted(observations[$0], input: inputs.ofObservation[$0]) }
        return state(verdicts: verdicts, observations: shifted, tlsPortSuggestion: tlsPortSuggestion)
    }

    /// The target's verdict and exception from its tests' verdicts, as the run's report derives them.
    private func state(verdicts: [Verdict], observations: [ProbeResult], tlsPortSuggestion: ExceptionSuggestion?) -> ForecastState {
        let suggestion = tlsPortSuggestion ?? ExceptionAdvisor.suggest(host: target.host, results: Array(zip(tests, verdicts)),
                                                                       observations: observations, ruleSet: runner.options.ruleSet)
        let shownHops = outcomes.prefix(shownCount).compactMap { $0 }.flatMap(\.hops)
        let reachability: DiagnosticsReport.Reachability = shownHops.contains { $0.cleartext != nil }
            ? .answered : DiagnosticsReport.reachability(of: observations)
        let defaultPasses = zip(tests, verdicts).first { $0.0.role == .defaultConnection }?.1.passed ?? false
        let verdict = AuditVerdict(defaultPasses: defaultPasses, reachability: reachability, suggestion: suggestion)
        return ForecastState(verdict: verdict, suggestion: suggestion)
    }

    /// Test `index`'s recorded load, judged again under `dated` by a fresh `LoadWalk`: each fetch it
    /// asks for is answered with the recorded hop for the same URL (no handshake), its trust and
    /// Apple's certificate rules as at `dated`'s instant. A walk that would go further than the
    /// recording (a hop that failed now passing and redirecting) stops there.
    private func replay(_ index: Int, dated: ForecastInputs.Dated, inputs: ForecastInputs) -> Verdict {
        guard let recorded = outcomes[index]?.hops else { return .pass }
        let walk = walk(for: index)
        var cursor = recorded.startIndex
        func nextRecorded(_ url: String, cleartext: Bool) -> (HopOutcome, Int)? {
            while cursor < recorded.endIndex {
                let hop = recorded[cursor]
                cursor += 1
                let fetched = cleartext ? (hop.cleartext != nil || hop.result != nil) : hop.result != nil
                if hop.url == url && fetched { return (hop, cursor - 1) }
            }
            return nil
        }
        loop: while let fetch = walk.next() {
            switch fetch {
            case .cleartext(let request):
                guard let (hop, _) = nextRecorded(request.target.url, cleartext: true) else { break loop }
                if let exchange = hop.cleartext {
                    walk.record(cleartext: .success(exchange))
                } else if case .failure(let failure)? = hop.result {
                    walk.record(cleartext: .failure(failure))
                } else {
                    break loop
                }
            case .firstHop(let request), .redirect(let request):
                guard let (hop, position) = nextRecorded(request.target.url, cleartext: false), let result = hop.result else { break loop }
                let input = inputs.ofHop[index][position]
                walk.record(dated.shifted(result, input: input), certificateRules: input.map { input in { dated.violations(input, $0) } })
            }
        }
        return walk.outcome.verdict
    }
}

/// The parts of a run's recorded handshakes that a judgement reads the date through, each distinct
/// one once: the served chain with its trust evaluation, SCTs, OCSP staple and name asked for.
/// Every test's hops and every observation of the run point at one of them.
struct ForecastInputs {
    /// The distinct handshakes' certificate inputs, in order of first appearance.
    let distinct: [Observation]
    /// For each test, for each recorded hop, its handshake's place in `distinct` (nil: none completed).
    let ofHop: [[Int?]]
    /// For each of the run's `observations`, its place in `distinct`.
    let ofObservation: [Int?]
    private let rules: CertificateRuleSet
    private let logs: CTLogList
    private let distrust: AppleDistrustList

    /// Whether two handshakes are judged alike at every instant: every input of
    /// `AppleCertificatePolicy.violations(in:)` and of `TrustEvaluation.judged(at:served:)` is the
    /// same: the chain as served, the whole trust evaluation (problems, anchor, path and whatever
    /// else it records), the SCTs delivered, the OCSP staple and the name asked for. The served
    /// certificates by their SHA-256 fingerprint: the facts are parsed from those bytes.
    private static func judgedAlike(_ a: Observation, _ b: Observation) -> Bool {
        guard a.chain.count == b.chain.count else { return false }
        for index in a.chain.indices where a.chain[index].sha256Fingerprint != b.chain[index].sha256Fingerprint { return false }
        return a.trust == b.trust && a.deliveredSCTs == b.deliveredSCTs && a.ocspStaple == b.ocspStaple && a.serverName == b.serverName
    }

    init(run: DiagnosticsRun) {
        var distinct: [Observation] = []
        // A run serves one chain or a few: a linear search.
        func place(_ result: ProbeResult?) -> Int? {
            guard case .success(let observation)? = result else { return nil }
            for index in distinct.indices where Self.judgedAlike(distinct[index], observation) { return index }
            distinct.append(observation)
            return distinct.count - 1
        }
        var ofHop: [[Int?]] = []
        ofHop.reserveCapacity(run.outcomes.count)
        for test in run.outcomes.indices {
            guard let hops = run.outcomes[test]?.hops else {
                ofHop.append([])
                continue
            }
            ofHop.append(hops.indices.map { place(hops[$0].result) })
        }
        self.ofHop = ofHop
        ofObservation = run.observations.map(place)
        self.distinct = distinct
        rules = run.runner.options.ruleSet.certificateRules
        logs = run.runner.prober.options.ctLogs
        distrust = run.runner.options.distrust
    }

    /// The inputs at `date`: each distinct handshake's trust problems and Apple's certificate rules
    /// (with and without Certificate Transparency required, as a load's policy asks).
    func at(_ date: Date) -> Dated {
        inputs(at: date) { $0.trust.judged(at: date, served: $0.chain).problems }
    }

    /// The inputs the run's own walks read: the trust problems as recorded (OpenSSL's, at the
    /// prober's instant) and Apple's certificate rules at `date`, the prober's instant.
    func recorded(at date: Date) -> Dated {
        inputs(at: date) { $0.trust.problems }
    }

    private func inputs(at date: Date, problems trustProblems: (Observation) -> [TrustProblem]) -> Dated {
        var problems: [[TrustProblem]] = []
        var violations: [[CertificateRuleViolation]] = []
        problems.reserveCapacity(distinct.count)
        violations.reserveCapacity(2 * distinct.count)
        for observation in distinct {
            problems.append(trustProblems(observation))
            for requireCT in [false, true] {
                violations.append(AppleCertificatePolicy.violations(in: observation, at: date, requireCertificateTransparency: requireCT,
                                                                    rules: rules, logs: logs, distrust: distrust))
            }
        }
        return Dated(date: date, inputs: DatedInputs(problems: problems, violations: violations))
    }

    /// Everything a judgement at `date` reads the date through. Equal for two instants: the
    /// judgements at both are equal (nothing else in `LoadWalk`, `ATSEvaluator`, `ExceptionAdvisor`
    /// or `AuditVerdict` reads the date or the trust's `evaluatedAt`).
    struct DatedInputs: Equatable {
        /// Per distinct handshake, the trust evaluation's problems at the instant.
        var problems: [[TrustProblem]]
        /// Per distinct handshake, Apple's certificate rules broken without, then with, CT required.
        var violations: [[CertificateRuleViolation]]
    }

    struct Dated: Equatable {
        var date: Date
        var inputs: DatedInputs

        /// Compares the inputs only: the instant itself is read through nothing else.
        static func == (lhs: Dated, rhs: Dated) -> Bool { lhs.inputs == rhs.inputs }

        /// Apple's certificate rules the distinct handshake `input` breaks at this instant.
        func violations(_ input: Int, _ requireCertificateTransparency: Bool) -> [CertificateRuleViolation] {
            inputs.violations[2 * input + (requireCertificateTransparency ? 1 : 0)]
        }

        /// `result` with its trust evaluation as it reads at this instant: the problems
        /// `TrustEvaluation.judged(at:served:)` gives for its distinct handshake `input`.
        func shifted(_ result: ProbeResult, input: Int?) -> ProbeResult {
            guard case .success(var observation) = result, let input else { return result }
            observation.trust.problems = inputs.problems[input]
            observation.trust.evaluatedAt = date
            return .success(observation)
        }
    }
}

extension AuditVerdict {
    /// The verdict from what decides it: whether default ATS passes, whether anything spoke TLS,
    /// and the exception advice.
    package init(defaultPasses: Bool, reachability: DiagnosticsReport.Reachability, suggestion: ExceptionSuggestion) {
        // The contract's one derivation (ATSContract's AuditVerdict), from the engine's values.
        let exceptionHelps = if case .exception = suggestion { true } else { false }
        self.init(defaultPasses: defaultPasses, reachable: reachability != .unreachable, exceptionHelps: exceptionHelps)
    }
}

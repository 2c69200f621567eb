import ATSPolicy
import TLSFacts

/// What a host needs in an app's Info.plist.
public enum ExceptionSuggestion: Sendable, Hashable {
    /// Default ATS passes.
    case none
    /// The minimal NSExceptionDomains entry, with the evidence for each key.
    case exception(domain: String, DomainException, rationale: [KeyEvidence])
    /// Even Allow All Loads fails: no dictionary helps.
    case impossible(reason: String)

    /// The NSAppTransportSecurity dictionary to paste, for `.exception`.
    public var configuration: ATSConfiguration? {
        guard case .exception(let domain, let exception, _) = self else { return nil }
        return ATSConfiguration(exceptionDomains: [domain: exception])
    }
}

/// Derives the weakest-needed exception from nscurl-style test results.
public enum ExceptionAdvisor {
    /// How much an entry weakens ATS. Keys that App Store review asks to justify cost more;
    /// NSExceptionAllowsInsecureHTTPLoads (it turns ATS-required off) costs most. A lowered
    /// minimum costs one more per version below ATS's own (TLS 1.1: 2, TLS 1.0: 3).
    static func cost(_ keys: ExceptionKeys) -> Int {
        var total = keys.forwardSecrecyOff ? 1 : 0
        if let minimum = keys.minimum, keys.onlyRelaxes {
            total += 1 + TLSVersion.all.filter { $0 >= minimum && $0 < DomainException().effectiveMinimumTLSVersion }.count
        }
        if keys.insecureHTTP { total += 10 }
        return total
    }

    /// Every entry the advisor may suggest (`NSCurlMatrix.candidateExceptions`, from nscurl's
    /// tests), cheapest first (ties: fewer keys).
    static let candidates: [ExceptionKeys] = NSCurlMatrix.candidateExceptions.sorted { (cost($0), $0.count) < (cost($1), $1.count) }

    /// The entry one step stronger in `minimum`: the next candidate minimum up, or none (ATS's own).
    static func strongerMinimum(than minimum: TLSVersion) -> TLSVersion? {
        candidates.compactMap(\.minimum).filter { $0 > minimum }.min()
    }

    /// `results` are verdicts for nscurl's tests (`NSCurlMatrix.tests(host:)`; the supplementary
    /// ones, insecure HTTP without PFS off, are used when present), each found by its role. `observations`
    /// are any handshakes seen with the host; they make the evidence and the reasons more precise.
    public static func suggest(host: String, results: [(DiagnosticTest, Verdict)], observations: [ProbeResult] = [],
                               ruleSet: RuleSet) -> ExceptionSuggestion {
        func verdict(_ role: DiagnosticRole) -> Verdict? {
            results.first { $0.0.role == role }?.1
        }
        func verdict(_ keys: ExceptionKeys) -> Verdict? {
            verdict(keys.count == 0 ? .defaultConnection : .exception(keys))
        }

        if verdict(.defaultConnection)?.passed == true { return .none }

        for candidate in candidates {
            guard verdict(candidate)?.passed == true else { continue }
            return .exception(domain: DomainKeys.key(for: host, in: .exceptionDomains), candidate.exception,
                              rationale: evidence(for: candidate, verdict: verdict, observations: observations))
        }

        let facts = observedFacts(observations, ruleSet: ruleSet)
        guard let allowAll = verdict(.allowAllLoads) else {
            return .impossible(reason: "no tested exception passes" + rendered(facts))
        }
        if allowAll.passed {
            return .impossible(reason: "Allow All Loads passes but no per-domain exception does; the results disagree with each other" + rendered(facts))
        }
        let first = allowAll.reasons.first
        let cause: String
        switch first?.layer {
        case .trust?: cause = "default trust evaluation fails, which no ATS key relaxes"
        case .connection?: cause = "the host cannot be reached over TLS"
        default: cause = "the platform cannot complete a handshake with the server"
        }
        // The facts say which suite the server chose and why no platform takes it; the reason's
        // own "the server chooses X, which this offer does not include" would say it again.
        let message = (first?.clauses ?? [Clause("no reason recorded")]).notSaid(by: facts).line
        return .impossible(reason: "even Allow All Loads fails: \(cause): \(message)" + rendered(facts))
    }

    private static func evidence(for chosen: ExceptionKeys, verdict: (ExceptionKeys) -> Verdict?,
                                 observations: [ProbeResult]) -> [KeyEvidence] {
        func because(_ stronger: ExceptionKeys, _ what: String) -> SettingComparison {
            guard let v = verdict(stronger) else { return .untested(setting: what) }
            return .tested(setting: what, v)
        }
        var rationale: [KeyEvidence] = []
        if let minimum = chosen.minimum {
            var stronger = chosen
            stronger.minimum = strongerMinimum(than: minimum)
            let best = observations.compactMap { try? $0.get().protocolVersion }.max()
            rationale.append(KeyEvidence(key: ATSKey.exceptionMinimumTLSVersion.name, value: minimum.plistName,
                                         comparison: because(stronger, "minimum \(stronger.minimum ?? DomainException().effectiveMinimumTLSVersion)"), bestProtocol: best))
        }
        if chosen.forwardSecrecyOff {
            var stronger = chosen
            stronger.forwardSecrecyOff = false
            let suites = Set(observations.compactMap { try? $0.get().cipherSuite }).filter { !$0.isForwardSecret }
            rationale.append(KeyEvidence(key: ATSKey.exceptionRequiresForwardSecrecy.name, value: "false",
                                         comparison: because(stronger, "with forward secrecy required"), chosenSuites: suites.sorted()))
        }
        if chosen.insecureHTTP {
            var stronger = chosen
            stronger.insecureHTTP = false
            rationale.append(KeyEvidence(key: ATSKey.exceptionAllowsInsecureHTTPLoads.name, value: "true",
                                         comparison: because(stronger, "with ATS required")))
        }
        return rationale
    }

    /// Facts from handshakes that explain an impossible case: suites or protocols no Apple client offers.
    private static func observedFacts(_ observations: [ProbeResult], ruleSet: RuleSet) -> [Clause] {
        var facts: [Clause] = []
        for case .success(let o) in observations {
            if !ruleSet.platformSuites.contains(o.cipherSuite) {
                facts.append(Clause(.serverChose([o.cipherSuite]), "server chose \(o.cipherSuite), which the platform (\(ruleSet.id)) does not offer"))
            }
            if o.protocolVersion < ruleSet.platformMinimumVersion {
                facts.append(Clause(.serverHighestProtocol(o.protocolVersion),
                                    "server's highest protocol is \(o.protocolVersion), which the platform (\(ruleSet.id)) does not speak"))
            }
        }
        var seen = Set<Clause>()
        return facts.filter { seen.insert($0).inserted }
    }

    /// The facts after the reason, in parentheses; nothing without them.
    private static func rendered(_ facts: [Clause]) -> String {
        facts.isEmpty ? "" : " (" + facts.line + ")"
    }
}

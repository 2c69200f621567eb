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
    /// One candidate entry: a lowered minimum (nil = the default TLS 1.2), PFS off, insecure HTTP.
    struct Candidate: Hashable {
        var minimum: TLSVersion?
        var forwardSecrecyOff: Bool
        var insecureHTTP: Bool

        /// How much the entry weakens ATS. Keys that App Store review asks to justify cost more;
        /// NSExceptionAllowsInsecureHTTPLoads (it turns ATS-required off) costs most.
        var cost: Int {
            var total = forwardSecrecyOff ? 1 : 0
            if minimum == .tls11 { total += 2 }
            if minimum == .tls10 { total += 3 }
            if insecureHTTP { total += 10 }
            return total
        }
        var keyCount: Int { (minimum == nil ? 0 : 1) + (forwardSecrecyOff ? 1 : 0) + (insecureHTTP ? 1 : 0) }

        func exception() -> DomainException {
            DomainException(allowsInsecureHTTPLoads: insecureHTTP, minimumTLSVersion: minimum?.plistName,
                            requiresForwardSecrecy: forwardSecrecyOff ? false : nil)
        }

        /// Every entry the advisor may suggest, cheapest first (ties: fewer keys).
        static let all: [Candidate] = {
            var list: [Candidate] = []
            for minimum in [nil, TLSVersion.tls11, .tls10] {
                for pfs in [false, true] {
                    for http in [false, true] where minimum != nil || pfs || http {
                        list.append(Candidate(minimum: minimum, forwardSecrecyOff: pfs, insecureHTTP: http))
                    }
                }
            }
            return list.sorted { ($0.cost, $0.keyCount) < ($1.cost, $1.keyCount) }
        }()
    }

    /// `results` are verdicts for nscurl's tests (`NSCurlMatrix.tests(host:)`; more entries of the
    /// same shape, such as insecure HTTP without PFS off, are used when present). `observations`
    /// are any handshakes seen with the host; they make the evidence and the reasons more precise.
    public static func suggest(host: String, results: [(DiagnosticTest, Verdict)], observations: [ProbeResult] = [],
                               ruleSet: RuleSet) -> ExceptionSuggestion {
        func verdict(_ configuration: ATSConfiguration) -> Verdict? {
            results.first { $0.0.configuration == configuration }?.1
        }
        func verdict(_ candidate: Candidate) -> Verdict? {
            if candidate.keyCount == 0 { return verdict(ATSConfiguration.default) }
            return verdict(ATSConfiguration(exceptionDomains: [DomainKeys.key(for: host, in: .exceptionDomains): candidate.exception()]))
        }

        if verdict(ATSConfiguration.default)?.passed == true { return .none }

        for candidate in Candidate.all {
            guard verdict(candidate)?.passed == true else { continue }
            return .exception(domain: DomainKeys.key(for: host, in: .exceptionDomains), candidate.exception(),
                              rationale: evidence(for: candidate, verdict: verdict, observations: observations))
        }

        let facts = observedFacts(observations, ruleSet: ruleSet)
        guard let allowAll = verdict(ATSConfiguration(allowsArbitraryLoads: true)) else {
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

    private static func evidence(for chosen: Candidate, verdict: (Candidate) -> Verdict?,
                                 observations: [ProbeResult]) -> [KeyEvidence] {
        func because(_ stronger: Candidate, _ what: String) -> SettingComparison {
            guard let v = verdict(stronger) else { return .untested(setting: what) }
            return .tested(setting: what, v)
        }
        var rationale: [KeyEvidence] = []
        if let minimum = chosen.minimum {
            var stronger = chosen
            stronger.minimum = minimum == .tls10 ? .tls11 : nil
            let best = observations.compactMap { try? $0.get().protocolVersion }.max()
            rationale.append(KeyEvidence(key: ATSKey.exceptionMinimumTLSVersion.name, value: minimum.plistName,
                                         comparison: because(stronger, "minimum \(stronger.minimum ?? .tls12)"), bestProtocol: best))
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

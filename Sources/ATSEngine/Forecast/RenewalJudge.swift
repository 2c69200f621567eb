import ATSContract
import ATSPolicy
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

/// The renewal check: the leaf the run saw, issued again at an instant by the same issuer (same
/// names, key, extensions and lifetime; its SCTs dated at issue), judged on the path the run built
/// by Apple's certificate rules (`AppleCertificatePolicy`, the rules every load is judged by) and
/// by the path's validity at that instant (`TrustEvaluation.judged(at:served:)`, what the forecast
/// reads: an issuing CA or anchor past its notAfter fails every leaf it issues). Only a chain that
/// reached an anchor is checked: otherwise no issuer is known to renew from.
struct RenewalJudge {
    let rules: CertificateRuleSet
    let logs: CTLogList
    let distrust: AppleDistrustList
    /// The chain as served, leaf first, its trust evaluation, the SCTs delivered beside it and the name asked for.
    let chain: [CertificateFacts]
    let trust: TrustEvaluation
    let deliveredSCTs: [SignedCertificateTimestamp]
    let serverName: String?

    /// `logs`: the prober's CT log list (the run's one list).
    init(options: DiagnosticsOptions, logs: CTLogList, observation: Observation) {
        self.init(rules: options.ruleSet.certificateRules, logs: logs, distrust: options.distrust, chain: observation.chain,
                  trust: observation.trust, deliveredSCTs: observation.deliveredSCTs, serverName: observation.serverName)
    }

    init(rules: CertificateRuleSet, logs: CTLogList, distrust: AppleDistrustList, chain: [CertificateFacts], trust: TrustEvaluation,
         deliveredSCTs: [SignedCertificateTimestamp], serverName: String?) {
        self.rules = rules
        self.logs = logs
        self.distrust = distrust
        self.chain = chain
        self.trust = trust
        self.deliveredSCTs = deliveredSCTs
        self.serverName = serverName
    }

    /// Judged at `issuedAt`, then at each of the forecast's instants in (issuedAt, end]
    /// (`ForecastCandidates.renewalInstants`: the instants the forecast judges, and the distrust
    /// dates); `failsFrom` is the first at which the renewal breaks a rule it does not break now.
    func check(at issuedAt: Date, until end: Date, candidates: ForecastCandidates) -> RenewalCheck? {
        guard let path = trust.path, trust.anchor != nil, let leaf = chain.first else { return nil }
        let lifetime = Int64(leaf.notAfter.timeIntervalSince(leaf.notBefore).rounded())
        let now = violations(issuedAt: issuedAt, leaf: leaf, path: path, lifetime: lifetime)
        var failsFrom: Date?
        var later: [CertificateRuleViolation] = []
        for (instant, _) in candidates.renewalInstants where instant > issuedAt && instant <= end {
            let then = violations(issuedAt: instant, leaf: leaf, path: path, lifetime: lifetime)
            // A validity violation names its certificate: another CA expiring later is a new one.
            let added = then.filter { found in !now.contains { Self.sameBreach($0, found) } }
            if !added.isEmpty {
                failsFrom = instant
                later = added
                break
            }
        }
        return RenewalCheck(issuedAt: issuedAt, lifetimeSeconds: lifetime, violations: now,
                            advice: Self.advice(now + later, rules: rules, anchor: trust.anchor),
                            failsFrom: failsFrom, failsFromViolations: later)
    }

    /// The rules a leaf issued at `instant` breaks, judged at that instant: Apple's certificate
    /// rules, and each certificate of the path outside its validity (the CAs: the renewed leaf is
    /// valid at its issue).
    private func violations(issuedAt instant: Date, leaf: CertificateFacts, path: [CertificateFacts], lifetime: Int64) -> [CertificateRuleViolation] {
        var renewed = leaf
        renewed.notBefore = instant
        renewed.notAfter = instant.addingTimeInterval(Double(lifetime))
        renewed.embeddedSCTs = leaf.embeddedSCTs.map { var sct = $0; sct.timestamp = instant; return sct }
        let delivered = deliveredSCTs.map { var sct = $0; sct.timestamp = instant; return sct }
        let renewedPath = [renewed] + path.dropFirst()
        let renewedChain = [renewed] + chain.dropFirst()
        let policy = AppleCertificatePolicy.violations(chain: renewedChain, anchor: trust.anchor, deliveredSCTs: delivered,
                                                       serverName: serverName, at: instant, rules: rules, logs: logs,
                                                       path: renewedPath, ocspStaple: nil, distrust: distrust)
        var renewedTrust = trust
        renewedTrust.path = renewedPath
        let validity = renewedTrust.judged(at: instant, served: renewedChain).problems
            .filter { $0.kind == .expired || $0.kind == .notYetValid }
            .map { CertificateRuleViolation(rule: .caValidity, certificateIndex: $0.certificateIndex,
                                            detail: "\($0.detail)\(Self.judgedAt)\(ForecastText.iso(instant)))") }
        return policy + validity
    }

    static let judgedAt = " (judged at "

    /// The same rule broken, and for a CA's validity the same certificate (whatever instant it was judged at).
    static func sameBreach(_ a: CertificateRuleViolation, _ b: CertificateRuleViolation) -> Bool {
        guard a.rule == b.rule else { return false }
        guard a.rule == .caValidity else { return true }
        func certificate(_ detail: String) -> Substring { detail[..<(detail.firstRange(of: Self.judgedAt)?.lowerBound ?? detail.endIndex)] }
        return a.certificateIndex == b.certificateIndex && certificate(a.detail) == certificate(b.detail)
    }

    /// One line per broken rule, saying what the operator changes.
    static func advice(_ violations: [CertificateRuleViolation], rules: CertificateRuleSet, anchor: AnchorSource?) -> [String] {
        var lines: [String] = []
        for violation in violations {
            let line: String
            switch violation.rule {
            case .distrustedRoot:
                line = "renewal from this CA will fail on Apple devices: change CA"
            case .caValidity:
                line = "renewal from this CA will fail on Apple devices: \(violation.detail): renew under a CA and root valid then"
            case .validity398:
                line = "a renewal with the same lifetime will fail on Apple devices: ask for at most \(rules.publicMaximumLifetimeDays) days"
            case .validity825:
                line = "a renewal with the same lifetime will fail on Apple devices: ask for at most \(rules.maximumLifetimeDays) days"
            default:
                line = "a renewal like this certificate will fail on Apple devices: \(violation.detail)"
            }
            if !lines.contains(line) { lines.append(line) }
        }
        return lines
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

/// Apple's certificate requirements beyond the chain check (ats-reference 2A): SAN-only names,
/// EKU and 825 days, 398 days and Certificate Transparency for public roots, RSA >= 2048, no SHA-1.
/// They belong to default trust evaluation, so they fail a load even with ATS off.
public struct CertificateRuleViolation: Hashable, Sendable, Codable, CustomStringConvertible {
    /// A stable identifier ("rsa-key-size", "validity-398", "sha1-signature", ...).
    public var rule: CertificateRuleID
    /// Index in the served chain (0 = leaf), nil for rules about the whole chain.
    public var certificateIndex: Int?
    /// One line naming the certificate and the rule.
    public var detail: String

    public init(rule: CertificateRuleID, certificateIndex: Int?, detail: String) {
        self.rule = rule
        self.certificateIndex = certificateIndex
        self.detail = detail
    }

    public var description: String { detail }
}

public enum AppleCertificatePolicy {
    /// Every Apple certificate rule the observed chain breaks, judged at `date`.
    /// CT is judged against `logs` (Apple's list as built in, by default); see `certificateTransparency(in:at:...)`
    /// for the counts behind the verdict.
    /// `rules` is the rule set's reading (`RuleSet.certificateRules`).
    public static func violations(in observation: Observation, at date: Date, requireCertificateTransparency: Bool = false,
                                  rules: CertificateRuleSet,
                                  logs: CTLogList = .apple, distrust: AppleDistrustList = .apple) -> [CertificateRuleViolation] {
        violations(chain: observation.chain, anchor: observation.trust.anchor,
                   deliveredSCTs: observation.deliveredSCTs, serverName: observation.serverName,
                   at: date, requireCertificateTransparency: requireCertificateTransparency, rules: rules, logs: logs,
                   path: observation.trust.path, ocspStaple: observation.ocspStaple, distrust: distrust,
                   pinningPolicy: observation.trust.pinningPolicy)
    }

    /// The same over plain values. `serverName` is the name asked for (SNI), used in messages only:
    /// matching the name is the probe's job (TrustProblem.nameMismatch).
    public static func violations(chain: [CertificateFacts], anchor: AnchorSource?,
                                  deliveredSCTs: [SignedCertificateTimestamp] = [], serverName: String? = nil,
                                  at date: Date, requireCertificateTransparency: Bool = false,
                                  rules: CertificateRuleSet,
                                  logs: CTLogList = .apple, path: [CertificateFacts]? = nil,
                                  ocspStaple: OCSPStaple? = nil,
                                  distrust: AppleDistrustList = .apple, pinningPolicy: String? = nil) -> [CertificateRuleViolation] {
        let context = CertificateRuleContext(chain: chain, anchor: anchor, date: date, rules: rules, path: path,
                                             deliveredSCTs: deliveredSCTs, ocspStaple: ocspStaple, distrust: distrust,
                                             serverName: serverName, logs: logs,
                                             requireCertificateTransparency: requireCertificateTransparency,
                                             pinningPolicy: pinningPolicy)
        return violations(context)
    }

    /// Every registered rule's violations, in registration order.
    public static func violations(_ context: CertificateRuleContext) -> [CertificateRuleViolation] {
        rules.flatMap { $0.violations(context) }
    }

    /// Apple's certificate rules, in the order their violations are reported (JSON and text
    /// output keep this order). A new rule is one file and one line here.
    package static let rules: [any CertificateRule] = [
        SubjectAltNameRule(),
        ServerAuthEKURule(),
        IntermediateEKURule(),
        LifetimeRules(),
        RSAKeySizeRule(),
        ECKeySizeRule(),
        KeyTypeRule(),
        SignatureHashRule(),
        DistrustedRootRule(),
        StapledRevocationRule(),
        CertificateTransparencyRule(),
    ]

    /// Apple's CT verdict for the observation, with counts by source, logs and operators.
    public static func certificateTransparency(in observation: Observation, at date: Date,
                                               requireCertificateTransparency: Bool = false,
                                               rules: CertificateRuleSet,
                                               logs: CTLogList = .apple) -> CTPolicyResult {
        CTPolicy(logs: logs, rules: rules).evaluate(
            leaf: observation.leaf, deliveredSCTs: observation.deliveredSCTs, anchor: observation.trust.anchor,
            requireCertificateTransparency: requireCertificateTransparency, at: date,
            anchorFingerprint: observation.trust.path?.last?.sha256Fingerprint, pinningPolicy: observation.trust.pinningPolicy)
    }
}

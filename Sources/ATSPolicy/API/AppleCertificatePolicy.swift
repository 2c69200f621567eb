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
    /// CT is judged against `logs` (Apple's list as built in, by default); `judgement(in:at:...)`
    /// gives the CT verdict's counts as well, from the same derivation.
    /// `rules` is the rule set's reading (`RuleSet.certificateRules`).
    public static func violations(in observation: Observation, at date: Date, requireCertificateTransparency: Bool = false,
                                  rules: CertificateRuleSet,
                                  logs: CTLogList = .apple, distrust: AppleDistrustList = .apple) -> [CertificateRuleViolation] {
        violations(context(of: observation, at: date, requireCertificateTransparency: requireCertificateTransparency,
                           rules: rules, logs: logs, distrust: distrust))
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

    /// The rules' context for an observation: its chain, anchor, SCTs, staple, path and pinning policy.
    static func context(of observation: Observation, at date: Date, requireCertificateTransparency: Bool,
                        rules: CertificateRuleSet, logs: CTLogList, distrust: AppleDistrustList) -> CertificateRuleContext {
        CertificateRuleContext(chain: observation.chain, anchor: observation.trust.anchor, date: date, rules: rules,
                               path: observation.trust.path, deliveredSCTs: observation.deliveredSCTs,
                               ocspStaple: observation.ocspStaple, distrust: distrust, serverName: observation.serverName,
                               logs: logs, requireCertificateTransparency: requireCertificateTransparency,
                               pinningPolicy: observation.trust.pinningPolicy)
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

    /// Every rule the observed chain breaks and Apple's CT verdict (counts by source, logs and
    /// operators), CT derived once: the CT rule's violation is made from the verdict returned.
    public static func judgement(in observation: Observation, at date: Date, requireCertificateTransparency: Bool = false,
                                 rules: CertificateRuleSet, logs: CTLogList = .apple,
                                 distrust: AppleDistrustList = .apple) -> CertificateJudgement {
        let context = context(of: observation, at: date, requireCertificateTransparency: requireCertificateTransparency,
                              rules: rules, logs: logs, distrust: distrust)
        let ct = CertificateTransparencyRule.verdict(context)
        let violations = Self.rules.flatMap { rule in
            rule is CertificateTransparencyRule ? CertificateTransparencyRule.violations(of: ct, context) : rule.violations(context)
        }
        return CertificateJudgement(violations: violations, certificateTransparency: ct)
    }
}

/// Apple's certificate rules judged once: what the chain breaks (CT included) and the CT
/// verdict the CT violation, if any, was made from.
public struct CertificateJudgement: Sendable {
    public var violations: [CertificateRuleViolation]
    public var certificateTransparency: CTPolicyResult
}

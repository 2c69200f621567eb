import Foundation
import TLSFacts

/// Apple's certificate requirements beyond the chain check (ats-reference 2A): SAN-only names,
/// EKU and 825 days, 398 days and Certificate Transparency for public roots, RSA >= 2048, no SHA-1.
/// They belong to default trust evaluation, so they fail a load even with ATS off.
public struct CertificateRuleViolation: Hashable, Sendable, Codable, CustomStringConvertible {
    /// A stable identifier ("rsa-key-size", "validity-398", "sha1-signature", ...).
    public var rule: String
    /// Index in the served chain (0 = leaf), nil for rules about the whole chain.
    public var certificateIndex: Int?
    /// One line naming the certificate and the rule.
    public var detail: String

    public init(rule: String, certificateIndex: Int?, detail: String) {
        self.rule = rule
        self.certificateIndex = certificateIndex
        self.detail = detail
    }

    public var description: String { detail }
}

public enum AppleCertificatePolicy {
    /// Every Apple certificate rule the observed chain breaks, judged at `date`.
    /// INTERFACE ONLY for now: the certificate-rules work fills this in.
    public static func violations(in observation: Observation, at date: Date, requireCertificateTransparency: Bool = false) -> [CertificateRuleViolation] {
        []
    }
}

import TLSFacts

/// Since iOS 13 / macOS 10.15 the CommonName is never used as a host name: a leaf without any
/// subjectAltName entry can match no host. Whether the SAN matches the host is the probe's
/// nameMismatch; this rule only flags a leaf that has no SAN at all.
public enum SubjectAltNameRule {
    public static func violations(_ context: CertificateRuleContext) -> [CertificateRuleViolation] {
        guard let leaf = context.leaf, leaf.dnsNames.isEmpty, leaf.ipAddresses.isEmpty else { return [] }
        return [context.violation(CertificateRuleID.subjectAltNameMissing, 0,
                                  "no subjectAltName DNS or IP entry; Apple ignores the CommonName")]
    }
}

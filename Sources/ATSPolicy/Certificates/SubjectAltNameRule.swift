import TextSupport
import TLSFacts

/// Since iOS 13 / macOS 10.15 the CommonName is never used as a host name: a leaf without any
/// subjectAltName entry can match no host. Whether the SAN matches the host is the probe's
/// nameMismatch; this rule only flags a leaf that has no SAN at all.
package struct SubjectAltNameRule: CertificateRule {
    package static let ids: [CertificateRuleID] = [.subjectAltNameMissing]

    package init() {}

    package func violations(_ context: CertificateRuleContext) -> [CertificateRuleViolation] {
        guard let leaf = context.leaf, leaf.dnsNames.isEmpty, leaf.ipAddresses.isEmpty else { return [] }
        var violation = context.violation(CertificateRuleID.subjectAltNameMissing, 0,
                                          "no subjectAltName DNS or IP entry; Apple ignores the CommonName")
        // The name asked for follows the rule id: it is what the missing SAN cannot match.
        if let name = context.serverName { violation.detail += " (asked for \(UntrustedText.escape(name, limit: 260)))" }
        return [violation]
    }
}

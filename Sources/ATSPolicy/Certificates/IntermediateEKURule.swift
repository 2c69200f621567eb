import TextSupport
import TLSFacts

/// Every CA between the leaf and the anchor (in the chain as built, fetched intermediates
/// included) whose extendedKeyUsage extension lists usages must allow id-kp-serverAuth or
/// anyExtendedKeyUsage (SecPolicyServer.c: SecPolicyCheckServerAuthEKU for system roots,
/// SecPolicyCheckExtendedKeyUsage for every chain, which also accepts the SGC usages).
/// The anchor itself is not checked.
package struct IntermediateEKURule: CertificateRule {
    package static let ids: [CertificateRuleID] = [.caServerAuthEKU]

    package init() {}

    package func violations(_ context: CertificateRuleContext) -> [CertificateRuleViolation] {
        let path = context.builtPath
        guard path.count > 2 else { return [] }
        let accepted: Set<String> = context.anchor == .system
            ? [CertificateFacts.serverAuthOID, CertificateFacts.anyExtendedKeyUsageOID]
            : ServerAuthEKURule.looseUsages
        return (1..<(path.count - 1)).compactMap { index in
            guard let usages = path[index].extendedKeyUsage, !usages.isEmpty, accepted.isDisjoint(with: usages) else { return nil }
            let listed = usages.prefix(8).map { UntrustedText.escape($0, limit: 80) }.joined(separator: ", ")
            return context.violation(CertificateRuleID.caServerAuthEKU, index,
                                     "CA extendedKeyUsage (\(listed)) allows neither id-kp-serverAuth nor anyExtendedKeyUsage",
                                     inPath: true)
        }
    }
}

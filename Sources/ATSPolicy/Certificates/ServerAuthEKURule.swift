import TLSFacts

/// HT210176: a TLS server certificate issued on or after 2019-07-01 must carry an
/// extendedKeyUsage extension that contains id-kp-serverAuth. A missing extension fails, and
/// so does anyExtendedKeyUsage on its own (Apple's stricter check in SecPolicyServer.c asks
/// for "the one true Server Auth EKU OID"; see docs/certificates.md).
public enum ServerAuthEKURule {
    public static func violations(_ context: CertificateRuleContext) -> [CertificateRuleViolation] {
        guard let leaf = context.leaf, leaf.notBefore >= context.rules.serverAuthAndLifetimeFrom else { return [] }
        let since = "required for certificates issued on or after \(dayString(context.rules.serverAuthAndLifetimeFrom))"
        guard let usages = leaf.extendedKeyUsage else {
            return [context.violation(CertificateRuleID.serverAuthEKU, 0,
                                      "no extendedKeyUsage extension; id-kp-serverAuth is \(since)")]
        }
        if usages.contains(CertificateFacts.serverAuthOID) { return [] }
        let what = usages.contains(CertificateFacts.anyExtendedKeyUsageOID)
            ? "extendedKeyUsage has anyExtendedKeyUsage but not id-kp-serverAuth, which is \(since)"
            : "extendedKeyUsage lacks id-kp-serverAuth (\(CertificateFacts.serverAuthOID)), which is \(since)"
        return [context.violation(CertificateRuleID.serverAuthEKU, 0, what)]
    }
}

import TLSFacts

/// The leaf's extendedKeyUsage, as Apple checks it (SecPolicyServer.c):
/// - every TLS chain (SecPolicyCheckExtendedKeyUsage with the SSL server EKUs of SecPolicy.c
///   set_ssl_ekus): an EKU extension, when present, must allow id-kp-serverAuth,
///   anyExtendedKeyUsage, Netscape SGC or Microsoft SGC; no extension is fine, an empty one is
///   not (SecPolicyLeafCallbacks.c extendedkeyusage_allows: "no EKU" matches a NULL array only);
/// - the strict check (SecPolicyCheckServerAuthEKU, HT210176): an EKU extension that contains
///   id-kp-serverAuth itself, for chains to a system root (any date) and for chains to neither
///   a system nor a user root issued on or after 2019-07-01: anchors an app sets itself ("for
///   system and app anchors"; "all other anchor types must be compliant if issued on or after
///   1 July 2019"). User-installed roots skip it.
/// `LeafEKUScope.everyAnchor` applies the strict check to every anchor from 2019-07-01 instead.
package struct ServerAuthEKURule: CertificateRule {
    package static let ids: [CertificateRuleID] = [.serverAuthEKU]

    package init() {}

    /// Usages the looser SSL server check accepts besides serverAuth.
    static let looseUsages: Set<String> = [CertificateFacts.serverAuthOID, CertificateFacts.anyExtendedKeyUsageOID,
                                           "2.16.840.1.113730.4.1", "1.3.6.1.4.1.311.10.3.3"]

    package func violations(_ context: CertificateRuleContext) -> [CertificateRuleViolation] {
        guard let leaf = context.leaf else { return [] }
        let issuedSinceRule = leaf.notBefore >= context.rules.serverAuthAndLifetimeFrom
        let strict: Bool
        switch context.rules.leafEKUScope {
        case .securityFramework:
            strict = context.anchor == .system || ((context.anchor == nil || context.anchor == .app) && issuedSinceRule)
        case .everyAnchor:
            strict = issuedSinceRule
        }
        let usages = leaf.extendedKeyUsage
        if strict {
            let requirement = context.anchor == .system && context.rules.leafEKUScope == .securityFramework
                ? "Apple requires id-kp-serverAuth of every leaf chaining to a system root"
                : "id-kp-serverAuth is required for certificates issued on or after \(dayString(context.rules.serverAuthAndLifetimeFrom))"
            guard let usages else {
                return [context.violation(CertificateRuleID.serverAuthEKU, 0, "no extendedKeyUsage extension; \(requirement)")]
            }
            if usages.contains(CertificateFacts.serverAuthOID) { return [] }
            let what = usages.contains(CertificateFacts.anyExtendedKeyUsageOID)
                ? "extendedKeyUsage has anyExtendedKeyUsage but not id-kp-serverAuth; \(requirement)"
                : "extendedKeyUsage lacks id-kp-serverAuth (\(CertificateFacts.serverAuthOID)); \(requirement)"
            return [context.violation(CertificateRuleID.serverAuthEKU, 0, what)]
        }
        // An empty extension is an extension: SecCertificateCopyExtendedKeyUsage returns an empty,
        // non-NULL array, extendedkeyusage_allows searches it and finds nothing, and only a NULL
        // array (no extension) meets the policy's "no EKU" entry (docs/trust.md, "Leaf EKU").
        guard let usages, Self.looseUsages.isDisjoint(with: usages) else { return [] }
        let what = usages.isEmpty ? "extendedKeyUsage is present but lists no usage"
                                  : "extendedKeyUsage allows neither id-kp-serverAuth nor anyExtendedKeyUsage"
        return [context.violation(CertificateRuleID.serverAuthEKU, 0, "\(what); Apple checks it whatever the root")]
    }
}

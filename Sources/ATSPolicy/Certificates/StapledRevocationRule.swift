/// A stapled OCSP response that says the leaf is revoked fails the chain, as on Apple
/// (SecRevocationServer.c processes a stapled response like a fetched one). A must-staple
/// leaf served without a staple does not fail: Apple does not enforce the TLS feature.
package struct StapledRevocationRule: CertificateRule {
    package static let ids: [CertificateRuleID] = [.ocspRevoked]

    package init() {}

    package func violations(_ context: CertificateRuleContext) -> [CertificateRuleViolation] {
        guard let staple = context.ocspStaple, staple.certificateStatus == "revoked", context.leaf != nil else { return [] }
        return [context.violation(CertificateRuleID.ocspRevoked, 0, "the server's stapled OCSP response says the certificate is revoked")]
    }
}

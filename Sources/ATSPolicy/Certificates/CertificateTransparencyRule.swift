/// Certificate Transparency, as Apple requires it (SecPolicyServer.c SecPVCCheckRequireCTConstraints,
/// support article 103214): `CTPolicy` counts the SCTs; a non-compliant leaf fails the chain.
/// Which leaves need CT, and how many SCTs from how many operators, is in CTPolicy.swift.
package struct CertificateTransparencyRule: CertificateRule {
    package static let ids: [CertificateRuleID] = [.certificateTransparency]

    package init() {}

    package func violations(_ context: CertificateRuleContext) -> [CertificateRuleViolation] {
        let ct = CTPolicy(logs: context.logs, rules: context.rules).evaluate(
            leaf: context.leaf, deliveredSCTs: context.deliveredSCTs, anchor: context.anchor,
            requireCertificateTransparency: context.requireCertificateTransparency, at: context.date,
            anchorFingerprint: context.path?.last?.sha256Fingerprint, pinningPolicy: context.pinningPolicy)
        guard ct.verdict == .nonCompliant else { return [] }
        return [context.violation(CertificateRuleID.certificateTransparency, 0, "Certificate Transparency \(ct.reason)")]
    }
}

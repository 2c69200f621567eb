/// Certificate Transparency, as Apple requires it (SecPolicyServer.c SecPVCCheckRequireCTConstraints,
/// support article 103214): `CTPolicy` counts the SCTs; a non-compliant leaf fails the chain.
/// Which leaves need CT, and how many SCTs from how many operators, is in CTPolicy.swift.
package struct CertificateTransparencyRule: CertificateRule {
    package static let ids: [CertificateRuleID] = [.certificateTransparency]

    package init() {}

    package func violations(_ context: CertificateRuleContext) -> [CertificateRuleViolation] {
        Self.violations(of: Self.verdict(context), context)
    }

    /// Apple's CT verdict for the context's leaf, with the counts behind it: the one derivation
    /// the rule's violation and `AppleCertificatePolicy.judgement`'s verdict both come from.
    static func verdict(_ context: CertificateRuleContext) -> CTPolicyResult {
        CTPolicy(logs: context.logs, rules: context.rules).evaluate(
            leaf: context.leaf, deliveredSCTs: context.deliveredSCTs, anchor: context.anchor,
            requireCertificateTransparency: context.requireCertificateTransparency, at: context.date,
            anchorFingerprint: context.path?.last?.sha256Fingerprint, pinningPolicy: context.pinningPolicy)
    }

    /// The rule's violation for a verdict already derived.
    static func violations(of ct: CTPolicyResult, _ context: CertificateRuleContext) -> [CertificateRuleViolation] {
        guard ct.verdict == .nonCompliant else { return [] }
        return [context.violation(CertificateRuleID.certificateTransparency, 0, "Certificate Transparency \(ct.reason)")]
    }
}

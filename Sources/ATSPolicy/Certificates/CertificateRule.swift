/// One of Apple's certificate rules, in the shape of swift-certificates' `VerifierPolicy`, but
/// collecting: `violations` returns every way the chain breaks the rule, not the first, so one
/// run reports everything an operator must fix.
///
/// A new rule is one file with a type conforming to this protocol, its ids in
/// `CertificateRuleID`, its codes in `AppleErrorCodes`, and one line in
/// `AppleCertificatePolicy.rules` (docs/rules.md, "Adding a rule").
package protocol CertificateRule: Sendable {
    /// The ids this rule can report.
    static var ids: [CertificateRuleID] { get }
    /// Every violation of the rule by the chain in `context`, in chain order.
    func violations(_ context: CertificateRuleContext) -> [CertificateRuleViolation]
}

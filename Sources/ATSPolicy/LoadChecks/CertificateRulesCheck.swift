import TextSupport
import TLSFacts

/// Apple's certificate rules (2A: `AppleCertificatePolicy.rules`), judged before the load at the
/// time of judgement and handed in as violations. A rule set from before iOS 13 has none of them
/// (the 398-day and CT rules came later still), so it reads no violation.
package struct CertificateRulesCheck: LoadCheck {
    package let id: LoadCheckID = "certificate-rules"
    package init() {}

    package func failures(_ context: LoadCheckContext) -> [FailureReason] {
        guard context.ruleSet.appliesIOS13CertificateRules else { return [] }
        return context.certificateViolations.map { violation in
            let codes = AppleErrorCodes.trustCodes(forRule: violation.rule)
            return FailureReason(.certificateRule(violation.rule), layer: .trust,
                                 UntrustedText.escape(violation.detail, limit: 400) + " (\(codes))")
        }
    }
}

import Foundation
import Testing

/// No function of the libraries defaults a rule set (issue 39, item 4): the default is the
/// command line's (`RuleSet.current`, named in its option declarations), and a library caller
/// passes a rule set, or certificate rules, explicitly. This reads Sources/ for a parameter of
/// type `RuleSet` or `CertificateRuleSet` (optional or not) with a default value, and for
/// certificate rules' violations defaulted (`[CertificateRuleViolation] = []` judged no rule at
/// all, silently: issue 39, item 7).
@Suite struct NoRuleSetDefaultTests {
    /// `name: RuleSet = ...`, `name: CertificateRuleSet? = ...`, `name: [CertificateRuleViolation] = []`,
    /// `name: ((Bool) -> [CertificateRuleViolation])? = nil` in a declaration's parameters.
    static var pattern: Regex<AnyRegexOutput> {
        try! Regex(#"(^|[(,])\s*(?!(var|let)\s)(\w+\s+)?\w+\s*:\s*(RuleSet|CertificateRuleSet|\[CertificateRuleViolation\]|\(\(.*\)\s*->\s*\[CertificateRuleViolation\]\))\??\s*=\s*[^=]"#)
    }

    @Test func noParameterDefaultsARuleSet() throws {
        let (checked, found) = try SourceScan.lines(matching: Self.pattern) { code in
            // The named sets themselves (`public static let ios26: RuleSet = {`) are not defaults.
            code.contains("static let ")
        }
        #expect(checked > 100, "Sources/ not found at \(SourceScan.sources.path)")
        #expect(found.isEmpty, "a parameter defaults a rule set:\n\(found.joined(separator: "\n"))")
    }

    /// The pattern finds what it must (so the test can fail).
    @Test func thePatternFindsADefault() {
        #expect("public init(logs: CTLogList = .apple, rules: CertificateRuleSet = .documented) {".contains(Self.pattern))
        #expect("    ruleSet: RuleSet = .default, instant: Date? = nil".contains(Self.pattern))
        #expect(!"public init(ruleSet: RuleSet, timeout: Double = 10)".contains(Self.pattern))
        #expect("certificateViolations: [CertificateRuleViolation] = []) -> Verdict {".contains(Self.pattern))
        #expect("func record(_ result: ProbeResult, certificateRules: ((_ requireCertificateTransparency: Bool) -> [CertificateRuleViolation])? = nil) {"
            .contains(Self.pattern))
        #expect(!"var found: [CertificateRuleViolation] = []".contains(Self.pattern))
    }
}

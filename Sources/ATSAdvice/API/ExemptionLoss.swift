import ATSPolicy
import TLSFacts

extension ExceptionAdvisor {
    /// What a host needs under an app's dictionary, from nscurl's results (`suggest`), asking
    /// `KeyJudgement` first whether the dictionary takes away an exemption nscurl's default
    /// dictionary grants (NSAllowsLocalNetworking = NO for a local host): then "ATS Default
    /// Connection" passing says nothing of the app's load, and the host is judged by the tests
    /// that give it an entry of its own (an entry overrides the exemption), so `plist check`,
    /// `app` and the tightener suggest the entry that makes the app's load pass. Default ATS for
    /// such a host is nscurl's "TLSv1.2" test (an entry with ATS's own minimum): it stands in
    /// for "ATS Default Connection", so a host that loads under default ATS needs nothing.
    public static func suggest(under policy: EffectivePolicy, results: [(DiagnosticTest, Verdict)], observations: [ProbeResult] = [],
                               ruleSet: RuleSet) -> ExceptionSuggestion {
        guard KeyJudgement.takesAwayDefaultExemption(policy, ruleSet: ruleSet) else {
            return suggest(host: policy.host, results: results, observations: observations, ruleSet: ruleSet)
        }
        // nscurl's "TLSv1.2" test: an entry with ATS's own minimum, found by its role.
        let underATS = DiagnosticRole.exception(ExceptionKeys(minimum: DomainException().effectiveMinimumTLSVersion))
        var adjusted = results.filter { $0.0.role != .defaultConnection }
        if let verdict = results.first(where: { $0.0.role == underATS })?.1 {
            adjusted.append((DiagnosticTest(role: .defaultConnection, section: "", title: "default ATS under the app's dictionary",
                                            host: policy.host), verdict))
        }
        return suggest(host: policy.host, results: adjusted, observations: observations, ruleSet: ruleSet)
    }
}

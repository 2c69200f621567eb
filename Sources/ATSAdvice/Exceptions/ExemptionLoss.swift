import ATSPolicy
import TLSFacts

extension ExceptionAdvisor {
    /// What a host needs under an app's dictionary, from nscurl's results (`suggest`), asking
    /// `KeyJudgement` first whether the dictionary takes away an exemption nscurl's default
    /// dictionary grants (NSAllowsLocalNetworking = NO for a local host): then "ATS Default
    /// Connection" passing says nothing of the app's load, and the host is judged by the tests
    /// that give it an entry of its own (an entry overrides the exemption), so `plist check`,
    /// `app` and the tightener suggest the entry that makes the app's load pass.
    public static func suggest(under policy: EffectivePolicy, results: [(DiagnosticTest, Verdict)], observations: [ProbeResult] = [],
                               ruleSet: RuleSet) -> ExceptionSuggestion {
        let results = KeyJudgement.takesAwayDefaultExemption(policy, ruleSet: ruleSet)
            ? results.filter { $0.0.configuration != .default } : results
        return suggest(host: policy.host, results: results, observations: observations, ruleSet: ruleSet)
    }
}

import TLSFacts

/// The suite the server chose is one the policy allows: the ATS forward-secret group (plus the
/// TLS_RSA suites when NSExceptionRequiresForwardSecrecy is NO), or the platform's whole list
/// when ATS does not apply. A suite outside the platform's list fails the handshake itself.
package struct CipherSuiteCheck: LoadCheck {
    package let id: LoadCheckID = "cipher-suite"
    package init() {}

    package func failures(_ context: LoadCheckContext) -> [FailureReason] {
        let suite = context.observation.cipherSuite
        let policy = context.policy, ruleSet = context.ruleSet
        guard !policy.allows(suite, ruleSet: ruleSet) else { return [] }
        if policy.requiresForwardSecrecy && !suite.isForwardSecret && ruleSet.nonForwardSecretSuites.contains(suite) {
            return [FailureReason(.notForwardSecret, layer: .ats, "server chose \(suite), not forward secret")]
        }
        if ruleSet.platformSuites.contains(suite) {
            return [FailureReason(.suiteNotAllowed, layer: .ats, "server chose \(suite), not an ATS cipher suite (rules \(ruleSet.id))")]
        }
        return [FailureReason(.suiteNotAllowed, layer: .handshake,
                              "server chose \(suite), which the platform (\(ruleSet.id)) does not offer")]
    }
}

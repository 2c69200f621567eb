import TextSupport
import TLSFacts

/// One check ATS makes of a completed handshake (the protocol, the suite, the chain, the leaf,
/// the pins, ...). Like `CertificateRule`, a check collects: it returns every failure it finds,
/// and the evaluator runs every check, so a verdict lists everything wrong with a load.
///
/// A new check is one file with a type conforming to this protocol, its failure kind's codes in
/// `AppleErrorCodes`, and one line in `ATSEvaluator.loadChecks` (docs/rules.md, "Adding a rule").
package protocol LoadCheck: Sendable {
    var id: LoadCheckID { get }
    /// Every failure of this check for the load in `context`; empty when it passes.
    func failures(_ context: LoadCheckContext) -> [FailureReason]
}

/// A load check's stable name ("protocol-version", "leaf-key-size", ...), for tests and docs.
package struct LoadCheckID: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    package let rawValue: String
    package init(rawValue: String) { self.rawValue = rawValue }
    package init(stringLiteral value: String) { rawValue = value }
    package var description: String { rawValue }
}

/// What every load check reads: the handshake's facts, the effective policy for the host, the
/// rule set, and the Apple certificate rules the chain breaks (judged before, at a given date).
package struct LoadCheckContext: Sendable {
    package var observation: Observation
    package var policy: EffectivePolicy
    package var ruleSet: RuleSet
    package var certificateViolations: [CertificateRuleViolation]

    package init(observation: Observation, policy: EffectivePolicy, ruleSet: RuleSet,
                certificateViolations: [CertificateRuleViolation]) {
        self.observation = observation
        self.policy = policy
        self.ruleSet = ruleSet
        self.certificateViolations = certificateViolations
    }

    /// The host, escaped for messages.
    var escapedHost: String { UntrustedText.escape(policy.host, limit: 255) }
}

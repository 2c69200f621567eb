import TLSFacts

/// The protocol the server chose is at least the policy's minimum (NSExceptionMinimumTLSVersion,
/// TLS 1.2 by default): a client never accepts a version it did not offer. Below the platform's
/// own minimum the handshake fails whatever the dictionary says.
package struct ProtocolVersionCheck: LoadCheck {
    package let id: LoadCheckID = "protocol-version"
    package init() {}

    package func failures(_ context: LoadCheckContext) -> [FailureReason] {
        let version = context.observation.protocolVersion
        let policy = context.policy, ruleSet = context.ruleSet
        guard version < policy.minimumVersion else { return [] }
        let belowPlatform = version < ruleSet.platformMinimumVersion
        let message = belowPlatform
            ? "server's highest protocol is \(version), which the platform (\(ruleSet.id)) no longer speaks"
            : "server's highest protocol is \(version), below the minimum \(policy.minimumVersion)"
        return [FailureReason(.protocolTooOld, layer: belowPlatform ? .handshake : .ats, message)]
    }
}

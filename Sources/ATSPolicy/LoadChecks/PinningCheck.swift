import TLSFacts

/// NSPinnedDomains: when the host has pins, one of them matches a certificate of the chain.
/// Apple matches pins against the chain it built (fetched intermediates, the store's root).
package struct PinningCheck: LoadCheck {
    package let id: LoadCheckID = "pinning"
    package init() {}

    package func failures(_ context: LoadCheckContext) -> [FailureReason] {
        guard let pins = context.policy.pins else { return [] }
        let observation = context.observation
        let pinning = PinningPolicy.evaluate(chain: observation.trust.path ?? observation.chain, pins: pins)
        guard !pinning.isSatisfied else { return [] }
        return [FailureReason(.pinMismatch, layer: .trust, "NSPinnedDomains for \(context.escapedHost): \(pinning.reason)")]
    }
}

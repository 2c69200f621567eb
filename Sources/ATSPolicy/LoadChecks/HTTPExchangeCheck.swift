import TextSupport
import TLSFacts

/// The HTTP request made over the finished handshake got a response (any status): a server
/// that closes the connection after the handshake fails the load with -1005.
package struct HTTPExchangeCheck: LoadCheck {
    package let id: LoadCheckID = "http-exchange"
    package init() {}

    package func failures(_ context: LoadCheckContext) -> [FailureReason] {
        guard let failure = context.observation.http?.failure else { return [] }
        return [FailureReason(.httpFailure, layer: .connection,
                              "the HTTP request failed after the handshake: \(UntrustedText.escape(failure, limit: 200))")]
    }
}

import Synchronization

/// A hold on one handshake between the server's first answer and the client's processing of it
/// (issue 43): a speculative handshake, started with the others in case nothing else shows what
/// the server would choose, waits here with the ServerHello read but not processed: no key
/// exchange, no certificate read, no signature checked. Its owner either releases it (its answer
/// is needed: it goes on from where it stopped, no round trip lost) or cancels the probe's task
/// (not needed: the socket is closed, and the client has spent only its ClientHello).
///
/// Bounded, so that a held probe never keeps a descriptor or a handshake slot that the tests it
/// waits for need (a low open-file limit), nor runs out its own deadline: it goes on by itself
/// after `holdLimit(elapsed:left:)`, as it would have without the hold.
package final class ServerHelloHold: Sendable {
    private struct State {
        var released = false
        var waiter: CheckedContinuation<Void, Never>?
        /// Seconds spent held, taken out of the handshake's own time.
        var heldSeconds = 0.0
    }
    private let state = Mutex(State())
    /// How long it may hold at most, in place of `holdLimit`'s first bound (still at most half of
    /// what is left). TEST SEAM (`DiagnosticsOptions.speculativeHoldSeconds`).
    let fixedLimit: Double?

    package init(limit: Double? = nil) {
        fixedLimit = limit
    }

    /// Lets the held handshake go on (now, or at once when it reaches the hold later).
    package func release() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.released = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    package var isReleased: Bool { state.withLock(\.released) }

    /// Seconds the handshake spent held.
    var heldSeconds: Double { state.withLock(\.heldSeconds) }

    /// How long a handshake `elapsed` seconds into its run, with `left` seconds before its
    /// deadline, may be held: twice what it took to get here (the tests' handshakes began with it
    /// and need about one more round trip, for their GET, before the first completes), at least
    /// 250 ms (RTT 0 on a loaded machine), and at most half of what is left, so that it still
    /// finishes in its time. A server that answers one connection at a time (`openssl s_server`)
    /// and reached this one before the tests' waits for it meanwhile: the bound is also the
    /// longest it stalls such a server.
    func holdLimit(elapsed: Double, left: Double) -> Double {
        min(fixedLimit ?? max(2 * elapsed, 0.25), max(0, left / 2))
    }

    /// Waits until released, until `limit` passes, or until the task is cancelled.
    func wait(on reactor: Reactor, until limit: Deadline) async {
        if isReleased || Task.isCancelled { return }
        let clock = Stopwatch()
        defer {
            let held = clock.milliseconds / 1000
            state.withLock { $0.heldSeconds += held }
        }
        await withTaskGroup(of: Void.self) { group in
            // The limit: a timer on the reactor, ended early when the hold is released.
            group.addTask {
                _ = await reactor.sleep(until: limit)
                self.release()
            }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let goOn = state.withLock { state -> Bool in
                        if state.released { return true }
                        state.waiter = continuation
                        return false
                    }
                    if goOn { continuation.resume() }
                }
            } onCancel: {
                self.release()
            }
            group.cancelAll()
        }
    }
}

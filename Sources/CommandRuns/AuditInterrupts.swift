import ATSReport
import ATSEngine
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// SIGINT and SIGTERM during an audit, as a clean shutdown (issue 24): the signal is taken on a
/// dispatch queue (not in a signal handler, where almost nothing is safe), recorded, and passed
/// to `onSignal`, which stops the scheduler's run. The audit then waits for every target's work
/// to end, writes what finished, closes its outputs, shuts its probe runtime down and only then
/// returns the documented status (130, 143; docs/exit-codes.md). So no thread runs OpenSSL or the
/// runtime while exit() tears the process down (an exit() straight from the signal once did,
/// and 1 run in 4 to 12 died with SIGSEGV in pthread_rwlock_wrlock).
///
/// A second signal while that happens ends the process at once (`_exit`, no atexit handlers:
/// nothing is torn down under a running thread), for a user who will not wait.
package final class AuditInterrupts: @unchecked Sendable {
    package struct Signal: Sendable {
        package let name: String
        package let status: ExitStatus
    }

    private struct State {
        package var received: Signal?
        var action: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())
    private var sources: [DispatchSourceSignal] = []  // set in init, read in cancel()

    package init() {
        for signal in [Signal(name: "SIGINT", status: .interrupted), Signal(name: "SIGTERM", status: .terminated)] {
            let number = signal.status == .interrupted ? SIGINT : SIGTERM
            Glibc.signal(number, SIG_IGN)  // the dispatch source sees it; the default action would not let it
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [self] in received(signal) }
            source.resume()
            sources.append(source)
        }
    }

    /// The first signal received, if any.
    package var received: Signal? { state.withLock { $0.received } }

    /// Runs `action` on the first signal (at once if one has come already).
    package func onSignal(_ action: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            state.action = action
            return state.received != nil
        }
        if now { action() }
    }

    private func received(_ signal: Signal) {
        let (first, action) = state.withLock { state -> (Bool, (@Sendable () -> Void)?) in
            guard state.received == nil else { return (false, nil) }
            state.received = signal
            return (true, state.action)
        }
        guard first else { _exit((self.received ?? signal).status.rawValue) }
        action?()
    }

    package func cancel() {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}

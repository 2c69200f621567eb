import Foundation

/// Runs blocking work on a thread of its own, never on Swift's cooperative pool, and awaits it.
enum BlockingRunner {
    /// Resumes a continuation once, whichever of the work or the watchdog finishes first.
    final class Once<Value: Sendable>: @unchecked Sendable {
        private let lock = NSLock()
        private var continuation: CheckedContinuation<Value, Never>?

        init(_ continuation: CheckedContinuation<Value, Never>) { self.continuation = continuation }

        func resume(_ value: Value) {
            let pending: CheckedContinuation<Value, Never>? = lock.withLock {
                defer { continuation = nil }
                return continuation
            }
            pending?.resume(returning: value)
        }
    }

    static func run<Value: Sendable>(watchdogSeconds: Double, onWatchdog: @escaping @Sendable () -> Value,
                                     work: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            let once = Once(continuation)
            let thread = Thread { once.resume(work()) }
            thread.stackSize = 1 << 20
            thread.start()
            DispatchQueue.global().asyncAfter(deadline: .now() + watchdogSeconds) { once.resume(onWatchdog()) }
        }
    }
}

import Synchronization

/// Resumes a continuation once, whichever of two racing sides (the work, a watchdog) gets
/// there first; the later call does nothing. `package`: a helper of this package, not API.
package final class ResumeOnce<Value: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Value, Never>?>

    package init(_ continuation: CheckedContinuation<Value, Never>) { self.continuation = Mutex(continuation) }

    package func resume(_ value: Value) {
        let pending = continuation.withLock { pending in
            defer { pending = nil }
            return pending
        }
        pending?.resume(returning: value)
    }
}

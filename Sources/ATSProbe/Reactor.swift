#if canImport(Glibc)
import Glibc
#endif
import HeapModule
import Synchronization

/// Every socket wait of every probe of one `ProbeRuntime`, on one thread.
///
/// A probe is an async function over non-blocking sockets: where it would block, it awaits
/// `wait(for:on:until:)`, and this thread resumes it when the descriptor is ready, when its
/// deadline passes, or at once when its task is cancelled. So a thousand handshakes in flight
/// cost a thousand suspended tasks and descriptors, not a thousand threads, and the CPU work
/// between waits (OpenSSL's handshake, certificate parsing) runs on the runtime's
/// `EngineExecutor`, which nothing here ever blocks.
///
/// The system calls are a `ReactorBackend`'s (`PlatformReactorBackend`: epoll on Linux);
/// docs/design.md ("Platforms") says what a kqueue backend would take.
final class Reactor: Sendable {
    /// What a wait is for. Errors and hang-ups always wake (the next I/O call reports them).
    typealias Interest = ReactorInterest

    /// Why a wait ended.
    enum Wake: Sendable {
        case ready
        case timedOut
        case cancelled
    }

    private struct Waiter {
        let descriptor: Int32
        let end: Double
        let continuation: CheckedContinuation<Wake, Never>
    }

    /// A waiter's deadline in the timer heap; ties broken by id so the order is total.
    private struct Timer: Comparable {
        let end: Double
        let id: UInt64
        static func < (a: Timer, b: Timer) -> Bool { (a.end, a.id) < (b.end, b.id) }
    }

    private struct State {
        var nextID: UInt64 = 1
        var waiters: [UInt64: Waiter] = [:]
        /// Deadlines, earliest first; entries whose waiter is gone are skipped when they surface.
        var timers = Heap<Timer>()
        /// When the loop will next look at the timers without being woken.
        var loopWakesAt = Double.infinity
        /// Persistent readiness callbacks (`watch`), by registration id.
        var watches: [UInt64: @Sendable (Bool, Bool) -> Void] = [:]
        /// Set by `cancelAll()` when the runtime shuts down: every wait, now and later, ends as
        /// cancelled.
        var refusing = false
        /// Set by `stop()`: the loop returns.
        var stopping = false
    }

    private let backend: PlatformReactorBackend
    private let state = Mutex(State())
    private let thread = Mutex<EngineThread?>(nil)

    /// Opens the backend's queue and wake-up and starts the thread, named `name`.
    init(name: String) {
        do {
            backend = try PlatformReactorBackend()
        } catch {
            preconditionFailure("\(error.call) failed: \(error.errno)")
        }
        guard let started = EngineThread.start(name: name, { [self] in loop() }) else {
            preconditionFailure("cannot start the reactor thread")
        }
        thread.withLock { $0 = started }
    }

    /// Waits until `descriptor` is ready for `interest`, the deadline passes, or the task is
    /// cancelled (or the runtime shuts down).
    func wait(for interest: Interest, on descriptor: Int32, until deadline: Deadline) async -> Wake {
        await wait(interest, on: descriptor, until: deadline)
    }

    private func wait(_ interest: Interest?, on descriptor: Int32, until deadline: Deadline) async -> Wake {
        if Task.isCancelled { return .cancelled }
        if deadline.hasPassed { return .timedOut }
        guard let id = state.withLock({ state -> UInt64? in
            if state.refusing { return nil }
            defer { state.nextID += 1 }
            return state.nextID
        }) else { return .cancelled }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Wake, Never>) in
                register(id: id, descriptor: descriptor, interest: interest, end: deadline.end, continuation: continuation)
            }
        } onCancel: {
            finish(id: id, with: .cancelled)
        }
    }

    /// Waits until the deadline passes or the task is cancelled: a timer on this thread.
    func sleep(until deadline: Deadline) async -> Wake {
        await wait(nil, on: -1, until: deadline)
    }

    private func register(id: UInt64, descriptor: Int32, interest: Interest?, end: Double,
                          continuation: CheckedContinuation<Wake, Never>) {
        let (accepted, wakeLoop) = state.withLock { state -> (Bool, Bool) in
            // cancelAll() may have run since the id was taken: it cannot see this waiter.
            if state.refusing { return (false, false) }
            state.waiters[id] = Waiter(descriptor: descriptor, end: end, continuation: continuation)
            state.timers.insert(Timer(end: end, id: id))
            return (true, end < state.loopWakesAt)
        }
        guard accepted else {
            continuation.resume(returning: .cancelled)
            return
        }
        if let interest, descriptor >= 0,
           !backend.armOnce(descriptor, id: id, for: interest) {
            // Not pollable (or already registered): let the caller's next I/O call report it.
            finish(id: id, with: .ready)
            return
        }
        // The cancellation handler may have run before the waiter existed: honour it now.
        if Task.isCancelled { finish(id: id, with: .cancelled) }
        if wakeLoop { signalLoop() }
    }

    /// Resumes waiter `id` once, whoever gets here first (readiness, its deadline, cancellation).
    private func finish(id: UInt64, with wake: Wake) {
        guard let waiter = state.withLock({ $0.waiters.removeValue(forKey: id) }) else { return }
        // Removed before the caller can close the descriptor: a closed descriptor leaves epoll by
        // itself, but one still open must not wake a later wait on the same number.
        if waiter.descriptor >= 0 { backend.remove(waiter.descriptor) }
        waiter.continuation.resume(returning: wake)
    }

    /// The runtime is shutting down: every wait in progress ends as cancelled, and every later
    /// one at once, so the probes in flight run to their end without waiting on the network.
    func cancelAll() {
        let ids = state.withLock { state -> [UInt64] in
            state.refusing = true
            return Array(state.waiters.keys)
        }
        for id in ids { finish(id: id, with: .cancelled) }
    }

    /// Ends the loop and joins the thread (at most `seconds`), then closes the descriptors.
    /// Call after `cancelAll()`.
    func stop(within seconds: Double) {
        state.withLock { $0.stopping = true }
        signalLoop()
        guard let thread = thread.withLock({ thread -> EngineThread? in
            defer { thread = nil }
            return thread
        }) else { return }
        // Closed only when the loop has surely returned (else the numbers could be reused under it).
        if thread.join(within: seconds) {
            backend.close()
        }
    }

    private func signalLoop() {
        backend.wake()
    }

    private func loop() {
        while true {
            let timeout = state.withLock { state -> Int32? in
                if state.stopping { return nil }
                let now = Deadline.now()
                guard let earliest = state.timers.min?.end else {
                    state.loopWakesAt = .infinity
                    return -1
                }
                state.loopWakesAt = earliest
                let milliseconds = (earliest - now) * 1000
                return milliseconds <= 0 ? 0 : Int32(min(milliseconds.rounded(.up), 60_000))
            }
            guard let timeout else { return }
            backend.wait(milliseconds: timeout) { id, readiness in
                if !runWatch(id, readiness) { finish(id: id, with: .ready) }
            }
            expireTimers()
        }
    }

    private func expireTimers() {
        let now = Deadline.now()
        var expired: [UInt64] = []
        state.withLock { state in
            while let timer = state.timers.min, timer.end <= now {
                state.timers.removeMin()
                if state.waiters[timer.id] != nil { expired.append(timer.id) }
            }
        }
        for id in expired { finish(id: id, with: .timedOut) }
    }

    /// Waits currently registered (tests).
    var pendingWaits: Int { state.withLock { $0.waiters.count } }

    // MARK: - Watches: readiness callbacks for descriptors a library owns

    /// A descriptor watched until `unwatch`, level-triggered: `handler(readable, writable)` runs
    /// on the reactor thread whenever it is ready (errors and hang-ups count as readable). For
    /// c-ares's sockets (Resolver), which c-ares opens, reads and closes itself; the handler
    /// must be quick and must not wait. Returns nil when the descriptor cannot be polled.
    func watch(_ descriptor: Int32, readable: Bool, writable: Bool,
               handler: @escaping @Sendable (_ readable: Bool, _ writable: Bool) -> Void) -> UInt64? {
        let id = state.withLock { state -> UInt64 in
            defer { state.nextID += 1 }
            state.watches[state.nextID] = handler
            return state.nextID
        }
        guard backend.watch(descriptor, id: id, readable: readable, writable: writable) else {
            _ = state.withLock { $0.watches.removeValue(forKey: id) }
            return nil
        }
        return id
    }

    /// Changes what a watch waits for.
    func rewatch(_ id: UInt64, descriptor: Int32, readable: Bool, writable: Bool) {
        backend.rewatch(descriptor, id: id, readable: readable, writable: writable)
    }

    /// Ends a watch; call before the descriptor is closed. A handler already picked up by the
    /// loop may still run once: it must check the descriptor is still its own.
    func unwatch(_ id: UInt64, descriptor: Int32) {
        _ = state.withLock { $0.watches.removeValue(forKey: id) }
        backend.remove(descriptor)
    }

    /// Runs a watch's handler; false when `id` is no watch.
    private func runWatch(_ id: UInt64, _ readiness: ReactorReadiness) -> Bool {
        guard let handler = state.withLock({ $0.watches[id] }) else { return false }
        handler(readiness.readable, readiness.writable)
        return true
    }
}

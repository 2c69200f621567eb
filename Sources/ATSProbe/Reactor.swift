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
    private let stalls = Mutex(StallLedger())

    /// The longest the loop waits without looking at the clock, even with no timer due: its
    /// heartbeat, so a wake-up much later than asked is seen within about a second of it.
    static let heartbeatMilliseconds: Int32 = 1_000
    /// A wake-up this much later than asked means this process was not running (stopped by
    /// SIGSTOP or a debugger, or starved of CPU by a quota): that time is counted as stalled.
    static let stallThreshold = 0.5

    /// Opens the backend's queue and wake-up and starts the thread, named `name`. Throws when
    /// the system has no descriptor or thread to give (`ulimit -n`, `ulimit -v`): the machine's
    /// failure, reported as such (exit 70), never a trap.
    init(name: String) throws(RuntimeStartError) {
        do {
            backend = try PlatformReactorBackend()
        } catch {
            throw RuntimeStartError(what: "the reactor's \(error.call)", errno: error.errno)
        }
        guard let started = EngineThread.start(name: name, { [self] in loop() }) else {
            let code = errno
            backend.close()
            throw RuntimeStartError(what: "the reactor's thread", errno: code)
        }
        thread.withLock { $0 = started }
    }

    /// Seconds this process has been seen not running since the reactor started (see
    /// `StallLedger`): grows only when a wake-up of the loop came `stallThreshold` or more later
    /// than asked. Any thread may ask; asking while the loop is overdue counts the overdue time
    /// now, so a probe that resumes before the reactor does still sees the stop it slept through.
    var stalledSeconds: Double {
        let now = Deadline.now()
        return stalls.withLock { ledger in
            ledger.observe(now: now, threshold: Reactor.stallThreshold)
            return ledger.lost
        }
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
            let start = Deadline.now()
            let timeout = state.withLock { state -> Int32? in
                if state.stopping { return nil }
                // Never longer than the heartbeat, so a stop is seen (StallLedger).
                guard let earliest = state.timers.min?.end, earliest - start < Double(Reactor.heartbeatMilliseconds) / 1000 else {
                    state.loopWakesAt = start + Double(Reactor.heartbeatMilliseconds) / 1000
                    return Reactor.heartbeatMilliseconds
                }
                state.loopWakesAt = earliest
                let milliseconds = (earliest - start) * 1000
                return milliseconds <= 0 ? 0 : Int32(milliseconds.rounded(.up))
            }
            guard let timeout else { return }
            stalls.withLock { $0.begin(expectedBy: start + Double(timeout) / 1000) }
            // The stall is counted before anything is resumed: a probe whose deadline passed
            // while the process was stopped finds the stop already counted.
            var observed = false
            func observe() {
                guard !observed else { return }
                observed = true
                let now = Deadline.now()
                stalls.withLock { $0.end(now: now, threshold: Reactor.stallThreshold) }
            }
            backend.wait(milliseconds: timeout) { id, readiness in
                observe()
                if !runWatch(id, readiness) { finish(id: id, with: .ready) }
            }
            observe()
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

/// The time this process was seen not running, from the reactor's wake-ups: the loop asks
/// epoll to wake it by a time at most a heartbeat away; a wake-up `threshold` or more later than
/// that means no thread of the process ran (SIGSTOP, a debugger, a closed laptop lid for
/// CLOCK_MONOTONIC does not count: it stops too; a CPU quota that starved it). Each wait's
/// lateness is counted once, by whoever sees it first (the loop when it wakes, or a probe
/// asking while the loop is overdue).
struct StallLedger {
    /// When the wait in progress should end; infinity while the loop is not waiting.
    private var expectedBy = Double.infinity
    /// The lateness of the wait in progress already counted.
    private var counted = 0.0
    private(set) var lost = 0.0

    mutating func begin(expectedBy: Double) {
        self.expectedBy = expectedBy
        counted = 0
    }

    mutating func observe(now: Double, threshold: Double) {
        let late = now - expectedBy
        guard late >= threshold, late > counted else { return }
        lost += late - counted
        counted = late
    }

    mutating func end(now: Double, threshold: Double) {
        observe(now: now, threshold: threshold)
        expectedBy = .infinity
    }
}

/// The probe runtime could not start: this machine gave no descriptor, memory or thread
/// (`ulimit -n`, `ulimit -v`). Not the input's fault and not a server's: the command line
/// reports it with exit status 70 (docs/exit-codes.md).
public struct RuntimeStartError: Error, Sendable, CustomStringConvertible {
    /// What could not be made ("the reactor's epoll_create1").
    public let what: String
    /// errno, when the system gave one.
    public let errno: Int32

    public var description: String {
        let reason = errno != 0 ? String(cString: strerror(errno)) : "refused"
        return "the probe engine cannot start on this machine: \(what) failed (\(reason))"
    }
}

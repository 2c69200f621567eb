#if canImport(Glibc)
import Glibc
#endif
import HeapModule
import Synchronization

/// Every socket wait of every probe of one `ProbeRuntime`, with no thread of its own.
///
/// A probe is an async function over non-blocking sockets: where it would block, it awaits
/// `wait(for:on:until:)`, and the reactor resumes it when the descriptor is ready, when its
/// deadline passes, or at once when its task is cancelled. So a thousand handshakes in flight
/// cost a thousand suspended tasks and descriptors, not a thousand threads.
///
/// The reactor is polled by the engine's own threads (`EngineExecutor`, leader/followers): the
/// one thread that leads calls `poll(blocking:)`, which waits in the backend (epoll) when that
/// thread has nothing else to run, and resumes on that same thread what it found ready, so a
/// ready socket's job is run by the thread that saw it, with no hand-off to another thread
/// (issue 43, item 2). Only one thread polls at a time, so the watches' handlers (c-ares) never
/// run on two threads at once.
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
        /// When the thread waiting in `poll(blocking: true)` will next look at the timers
        /// without being woken; -infinity while no thread waits there (an earlier deadline then
        /// needs no wake-up: the next poll sees it).
        var loopWakesAt = -Double.infinity
        /// Persistent readiness callbacks (`watch`), by registration id.
        var watches: [UInt64: @Sendable (Bool, Bool) -> Void] = [:]
        /// Set by `cancelAll()` when the runtime shuts down: every wait, now and later, ends as
        /// cancelled.
        var refusing = false
    }

    private let backend: PlatformReactorBackend
    private let state = Mutex(State())
    private let stalls = Mutex(StallLedger())

    /// The longest a blocking poll waits without looking at the clock, even with no timer due,
    /// and the longest the engine's threads go without polling while the process runs (they
    /// poll every `EngineExecutor.pollInterval` while busy): its heartbeat, so a stop of the
    /// process is seen within about a second of its end.
    static let heartbeatMilliseconds: Int32 = 1_000
    /// A poll this much later than due means this process was not running (stopped by SIGSTOP
    /// or a debugger, or starved of CPU by a quota): that time is counted as stalled.
    static let stallThreshold = 0.5

    /// Opens the backend's queue and wake-up. Throws when the system has no descriptor to give
    /// (`ulimit -n`): the machine's failure, reported as such (exit 70), never a trap.
    init() throws(RuntimeStartError) {
        do {
            backend = try PlatformReactorBackend()
        } catch {
            throw RuntimeStartError(.reactor, what: "the reactor's \(error.call)", errno: error.errno)
        }
    }

    /// Seconds this process has been seen not running since the reactor started (see
    /// `StallLedger`): grows only when a poll came `stallThreshold` or more later than due (a
    /// blocking poll's wake-up later than asked, or no poll for a heartbeat). Any thread may
    /// ask; asking while a poll is overdue counts the overdue time now, so a probe that resumes
    /// before the next poll still sees the stop it slept through.
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

    /// Waits until the deadline passes or the task is cancelled: a timer.
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

    /// No engine thread polls any more (the executor has stopped): no poll is due, so no stall
    /// is counted from now on. `closing`: the executor's threads have all returned, so the
    /// backend's descriptors are closed (else the numbers could be reused under a poll).
    func retire(closing: Bool) {
        let now = Deadline.now()
        stalls.withLock { $0.end(now: now, threshold: Reactor.stallThreshold) }
        if closing { backend.close() }
    }

    /// Makes a blocking `poll` in progress (or the next one) return at once; from any thread.
    func wakePoller() {
        backend.wake()
    }

    private func signalLoop() {
        backend.wake()
    }

    /// One look at the queue, by the one engine thread that leads (`EngineExecutor`), never
    /// two at once. `blocking`: the thread has nothing else to run, so it waits until a
    /// registration is ready, the earliest deadline, `wakePoller()`, or a heartbeat; otherwise
    /// it only takes what is ready now. Either way it then resumes, on this thread, every
    /// waiter found ready and every one whose deadline has passed, and runs the ready watches'
    /// handlers. No lock of the reactor is held while a waiter is resumed or a handler runs.
    func poll(blocking: Bool) {
        let start = Deadline.now()
        var timeout: Int32 = 0
        if blocking {
            timeout = state.withLock { state -> Int32 in
                // Never longer than the heartbeat, so a stop is seen (StallLedger).
                guard let earliest = state.timers.min?.end, earliest - start < Double(Reactor.heartbeatMilliseconds) / 1000 else {
                    state.loopWakesAt = start + Double(Reactor.heartbeatMilliseconds) / 1000
                    return Reactor.heartbeatMilliseconds
                }
                state.loopWakesAt = earliest
                let milliseconds = (earliest - start) * 1000
                return milliseconds <= 0 ? 0 : Int32(milliseconds.rounded(.up))
            }
        }
        stalls.withLock { ledger in
            // The gap since the last poll first (due within a heartbeat of it), then this wait.
            ledger.end(now: start, threshold: Reactor.stallThreshold)
            ledger.begin(expectedBy: start + Double(timeout) / 1000)
        }
        // The stall is counted before anything is resumed: a probe whose deadline passed
        // while the process was stopped finds the stop already counted.
        var observed = false
        func observe() {
            guard !observed else { return }
            observed = true
            let now = Deadline.now()
            stalls.withLock { ledger in
                ledger.end(now: now, threshold: Reactor.stallThreshold)
                // The next poll is due within a heartbeat: an idle thread polls with at most
                // that timeout, busy ones every `EngineExecutor.pollInterval`.
                ledger.begin(expectedBy: now + Double(Reactor.heartbeatMilliseconds) / 1000)
            }
            if blocking { state.withLock { $0.loopWakesAt = -.infinity } }
        }
        backend.wait(milliseconds: timeout) { id, readiness in
            observe()
            if !runWatch(id, readiness) { finish(id: id, with: .ready) }
        }
        observe()
        expireTimers()
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
    /// on the polling engine thread (one at a time) whenever it is ready (errors and hang-ups count as readable). For
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

    /// Ends a watch; call before the descriptor is closed. A handler already picked up by a
    /// poll may still run once: it must check the descriptor is still its own.
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

/// The time this process was seen not running, from the reactor's polls: a blocking poll asks
/// epoll to wake it by a time at most a heartbeat away, and the engine's threads poll at least
/// that often while they run; a poll `threshold` or more later than due means no thread of the
/// process ran (SIGSTOP, a debugger, a closed laptop lid for CLOCK_MONOTONIC does not count: it
/// stops too; a CPU quota that starved it; or every engine thread held a heartbeat by one job,
/// which also leaves ready sockets unserved). Each lateness is counted once, by whoever sees it
/// first (the next poll, or a probe asking while the poll is overdue).
struct StallLedger {
    /// When the next poll is due (the wait in progress should end); infinity before the first.
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

#if canImport(Glibc)
import Glibc
#endif
internal import CEpoll
import HeapModule
import Synchronization

/// Every socket wait of every probe of one `ProbeRuntime`, on one epoll thread.
///
/// A probe is an async function over non-blocking sockets: where it would block, it awaits
/// `wait(for:on:until:)`, and this thread resumes it when the descriptor is ready, when its
/// deadline passes, or at once when its task is cancelled. So a thousand handshakes in flight
/// cost a thousand suspended tasks and descriptors, not a thousand threads, and the CPU work
/// between waits (OpenSSL's handshake, certificate parsing) runs on the runtime's
/// `EngineExecutor`, which nothing here ever blocks.
///
/// epoll is Linux's; docs/design.md ("Platforms") says what a kqueue backend would take.
final class Reactor: Sendable {
    /// What a wait is for. Errors and hang-ups always wake (the next I/O call reports them).
    enum Interest: Sendable {
        case readable
        case writable

        var events: UInt32 { self == .readable ? EPOLLIN.rawValue : EPOLLOUT.rawValue }
    }

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
        /// Persistent readiness callbacks (`watch`), by epoll id.
        var watches: [UInt64: @Sendable (Bool, Bool) -> Void] = [:]
        /// Set by `cancelAll()` when the runtime shuts down: every wait, now and later, ends as
        /// cancelled.
        var refusing = false
        /// Set by `stop()`: the loop returns.
        var stopping = false
    }

    private let epoll: Int32
    private let wakeDescriptor: Int32
    private let state = Mutex(State())
    private let thread = Mutex<EngineThread?>(nil)

    /// Opens the epoll and wake descriptors and starts the thread, named `name`.
    init(name: String) {
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        wakeDescriptor = eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK))
        precondition(epoll >= 0 && wakeDescriptor >= 0, "epoll_create1/eventfd failed: \(errno)")
        var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(u64: 0))
        epoll_ctl(epoll, EPOLL_CTL_ADD, wakeDescriptor, &event)
        guard let started = EngineThread.start(name: name, { [self] in loop() }) else {
            preconditionFailure("cannot start the reactor thread")
        }
        thread.withLock { $0 = started }
    }

    /// Waits until `descriptor` is ready for `interest`, the deadline passes, or the task is
    /// cancelled (or the runtime shuts down).
    func wait(for interest: Interest, on descriptor: Int32, until deadline: Deadline) async -> Wake {
        await wait(events: interest.events, on: descriptor, until: deadline)
    }

    private func wait(events: UInt32, on descriptor: Int32, until deadline: Deadline) async -> Wake {
        if Task.isCancelled { return .cancelled }
        if deadline.hasPassed { return .timedOut }
        guard let id = state.withLock({ state -> UInt64? in
            if state.refusing { return nil }
            defer { state.nextID += 1 }
            return state.nextID
        }) else { return .cancelled }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Wake, Never>) in
                register(id: id, descriptor: descriptor, events: events, end: deadline.end, continuation: continuation)
            }
        } onCancel: {
            finish(id: id, with: .cancelled)
        }
    }

    /// Waits until the deadline passes or the task is cancelled: a timer on this thread.
    func sleep(until deadline: Deadline) async -> Wake {
        await wait(events: 0, on: -1, until: deadline)
    }

    private func register(id: UInt64, descriptor: Int32, events: UInt32, end: Double,
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
        var event = epoll_event(events: events | EPOLLONESHOT.rawValue, data: epoll_data_t(u64: id))
        // MOD when a registration outlived its waiter (a deadline that passed between the map
        // insert above and this call): the descriptor is still in the epoll set.
        if descriptor >= 0 && epoll_ctl(epoll, EPOLL_CTL_ADD, descriptor, &event) != 0
            && (errno != EEXIST || epoll_ctl(epoll, EPOLL_CTL_MOD, descriptor, &event) != 0) {
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
        if waiter.descriptor >= 0 { epoll_ctl(epoll, EPOLL_CTL_DEL, waiter.descriptor, nil) }
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
            close(epoll)
            close(wakeDescriptor)
        }
    }

    private func signalLoop() {
        var one: UInt64 = 1
        _ = write(wakeDescriptor, &one, 8)
    }

    private func loop() {
        var events = [epoll_event](repeating: epoll_event(), count: 256)
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
            let count = events.withUnsafeMutableBufferPointer { epoll_wait(epoll, $0.baseAddress, Int32($0.count), timeout) }
            if count > 0 {
                for index in 0..<Int(count) {
                    let id = events[index].data.u64
                    if id == 0 {
                        var drained: UInt64 = 0
                        _ = read(wakeDescriptor, &drained, 8)
                    } else if !runWatch(id, events: events[index].events) {
                        finish(id: id, with: .ready)
                    }
                }
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
        var event = epoll_event(events: Self.watchEvents(readable, writable), data: epoll_data_t(u64: id))
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, descriptor, &event) == 0 else {
            _ = state.withLock { $0.watches.removeValue(forKey: id) }
            return nil
        }
        return id
    }

    /// Changes what a watch waits for.
    func rewatch(_ id: UInt64, descriptor: Int32, readable: Bool, writable: Bool) {
        var event = epoll_event(events: Self.watchEvents(readable, writable), data: epoll_data_t(u64: id))
        epoll_ctl(epoll, EPOLL_CTL_MOD, descriptor, &event)
    }

    /// Ends a watch; call before the descriptor is closed. A handler already picked up by the
    /// loop may still run once: it must check the descriptor is still its own.
    func unwatch(_ id: UInt64, descriptor: Int32) {
        _ = state.withLock { $0.watches.removeValue(forKey: id) }
        epoll_ctl(epoll, EPOLL_CTL_DEL, descriptor, nil)
    }

    private static func watchEvents(_ readable: Bool, _ writable: Bool) -> UInt32 {
        (readable ? EPOLLIN.rawValue : 0) | (writable ? EPOLLOUT.rawValue : 0)
    }

    /// Runs a watch's handler for `events`; false when `id` is no watch.
    private func runWatch(_ id: UInt64, events: UInt32) -> Bool {
        guard let handler = state.withLock({ $0.watches[id] }) else { return false }
        let readable = events & (EPOLLIN.rawValue | EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0
        handler(readable, events & EPOLLOUT.rawValue != 0)
        return true
    }
}

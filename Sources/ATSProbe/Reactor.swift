#if canImport(Glibc)
import Glibc
#endif
internal import CEpoll
import Synchronization

/// Every socket wait of every probe, on one epoll thread.
///
/// A probe is an async function over non-blocking sockets: where it would block, it awaits
/// `Reactor.shared.wait(for:on:until:)`, and this thread resumes it when the descriptor is ready,
/// when its deadline passes, or at once when its task is cancelled. So a thousand handshakes in
/// flight cost a thousand suspended tasks and descriptors, not a thousand threads, and the CPU work
/// between waits (OpenSSL's handshake, certificate parsing) runs on Swift's cooperative pool, which
/// nothing here ever blocks.
final class Reactor: @unchecked Sendable {
    static let shared = Reactor()

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

    private struct State {
        var nextID: UInt64 = 1
        var waiters: [UInt64: Waiter] = [:]
        /// Deadlines, earliest first; entries whose waiter is gone are skipped when they surface.
        var timers = DeadlineHeap()
        /// When the loop will next look at the timers without being woken.
        var loopWakesAt = Double.infinity
        /// Persistent readiness callbacks (`watch`), by epoll id.
        var watches: [UInt64: @Sendable (Bool, Bool) -> Void] = [:]
    }

    // The epoll and wake descriptors live as long as the process: `shared` is never released.
    private let epoll: Int32
    private let wakeDescriptor: Int32
    private let state = Mutex(State())

    private init() {
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        wakeDescriptor = eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK))
        precondition(epoll >= 0 && wakeDescriptor >= 0, "epoll_create1/eventfd failed: \(errno)")
        var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(u64: 0))
        epoll_ctl(epoll, EPOLL_CTL_ADD, wakeDescriptor, &event)
        let started = PThread.start(name: "atsprobe-reactor") { [self] in loop() }
        precondition(started, "cannot start the reactor thread")
    }

    /// Waits until `descriptor` is ready for `interest`, the deadline passes, or the task is
    /// cancelled.
    func wait(for interest: Interest, on descriptor: Int32, until deadline: Deadline) async -> Wake {
        await wait(events: interest.events, on: descriptor, until: deadline)
    }

    private func wait(events: UInt32, on descriptor: Int32, until deadline: Deadline) async -> Wake {
        if Task.isCancelled { return .cancelled }
        if deadline.hasPassed { return .timedOut }
        let id = state.withLock { state -> UInt64 in
            defer { state.nextID += 1 }
            return state.nextID
        }
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
        let wakeLoop = state.withLock { state -> Bool in
            state.waiters[id] = Waiter(descriptor: descriptor, end: end, continuation: continuation)
            state.timers.push(end: end, id: id)
            return end < state.loopWakesAt
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

    private func signalLoop() {
        var one: UInt64 = 1
        _ = write(wakeDescriptor, &one, 8)
    }

    private func loop() -> Never {
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        while true {
            let timeout = state.withLock { state -> Int32 in
                let now = Deadline.now()
                guard let earliest = state.timers.peekEnd() else {
                    state.loopWakesAt = .infinity
                    return -1
                }
                state.loopWakesAt = earliest
                let milliseconds = (earliest - now) * 1000
                return milliseconds <= 0 ? 0 : Int32(min(milliseconds.rounded(.up), 60_000))
            }
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
            while let end = state.timers.peekEnd(), end <= now {
                let id = state.timers.pop()
                if state.waiters[id] != nil { expired.append(id) }
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

/// A binary min-heap of (deadline, waiter id).
struct DeadlineHeap {
    private var entries: [(end: Double, id: UInt64)] = []

    var isEmpty: Bool { entries.isEmpty }
    var count: Int { entries.count }

    func peekEnd() -> Double? { entries.first?.end }

    mutating func push(end: Double, id: UInt64) {
        entries.append((end, id))
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].end < entries[parent].end else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the id with the earliest deadline. The heap must not be empty.
    mutating func pop() -> UInt64 {
        let top = entries[0].id
        let last = entries.removeLast()
        guard !entries.isEmpty else { return top }
        entries[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < entries.count && entries[left].end < entries[smallest].end { smallest = left }
            if right < entries.count && entries[right].end < entries[smallest].end { smallest = right }
            if smallest == parent { break }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
        return top
    }
}

/// Detached POSIX threads with a small stack, for the few long-lived threads the engine owns
/// (the reactor).
enum PThread {
    static let stackSize = 512 * 1024

    static func start(name: String, _ body: @escaping @Sendable () -> Void) -> Bool {
        final class Box: Sendable {
            let body: @Sendable () -> Void
            let name: String
            init(_ body: @escaping @Sendable () -> Void, name: String) { self.body = body; self.name = name }
        }
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, stackSize)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        let box = Unmanaged.passRetained(Box(body, name: name)).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(&thread, &attributes, { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            box.body()
            return nil
        }, box)
        if started != 0 { Unmanaged<Box>.fromOpaque(box).release() }
        return started == 0
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs callbacks at deadlines, all from one thread. A call that finishes in time cancels its
/// entry, which leaves at once, so memory follows what is in flight. (dispatch_after makes a
/// timer per call that lives until its deadline even when cancelled: an audit finishing 1,000
/// handshakes a second kept some 20 MiB of dead timers alive.)
public final class Watchdog: @unchecked Sendable {
    public static let shared = Watchdog()

    public struct Token: Sendable {
        fileprivate let id: UInt64
    }

    private struct Entry {
        let deadline: Double
        let fire: @Sendable () -> Void
    }

    // Guarded by `mutex`; the condition wakes the thread for an earlier deadline.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var entries: [UInt64: Entry] = [:]
    private var nextID: UInt64 = 0
    private var threadStarted = false

    init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)  // deadlines are monotonic
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    /// Calls `fire` on the watchdog thread once `seconds` pass, unless cancelled first.
    public func schedule(after seconds: Double, _ fire: @escaping @Sendable () -> Void) -> Token {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        nextID += 1
        entries[nextID] = Entry(deadline: Deadline.now() + max(0, seconds), fire: fire)
        if !threadStarted { threadStarted = startThread() }
        pthread_cond_signal(condition)
        return Token(id: nextID)
    }

    public func cancel(_ token: Token) {
        pthread_mutex_lock(mutex)
        entries[token.id] = nil
        pthread_mutex_unlock(mutex)
    }

    /// Entries waiting, for tests.
    public var pending: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return entries.count
    }

    private func run() -> Never {
        pthread_mutex_lock(mutex)
        while true {
            guard let earliest = entries.values.map(\.deadline).min() else {
                pthread_cond_wait(condition, mutex)
                continue
            }
            let now = Deadline.now()
            if earliest > now {
                var until = timespec(tv_sec: Int(earliest), tv_nsec: Int((earliest - earliest.rounded(.down)) * 1e9))
                pthread_cond_timedwait(condition, mutex, &until)
                continue
            }
            let due = entries.filter { $0.value.deadline <= now }
            for id in due.keys { entries[id] = nil }
            // Fire outside the lock: a callback may schedule or cancel.
            pthread_mutex_unlock(mutex)
            for entry in due.values { entry.fire() }
            pthread_mutex_lock(mutex)
        }
    }

    private func startThread() -> Bool {
        var thread = pthread_t()
        let raw = Unmanaged.passUnretained(self).toOpaque()  // `shared` lives for the process
        return pthread_create(&thread, nil, { argument in
            Unmanaged<Watchdog>.fromOpaque(argument!).takeUnretainedValue().run()
        }, raw) == 0
    }
}

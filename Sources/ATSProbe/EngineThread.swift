internal import CEpoll
#if canImport(Glibc)
import Glibc
#endif

/// A joinable POSIX thread with a small stack, named for `/proc/self/task/*/comm` and
/// debuggers: the few long-lived threads a `ProbeRuntime` owns (its reactor, its executor's
/// threads, the resolver's). Joinable, so `ProbeRuntime.shutdown()` returns only once they are
/// gone.
struct EngineThread: Sendable {
    static let stackSize = 512 * 1024
    /// Linux keeps 15 bytes of a thread's name.
    static let nameLimit = 15

    private let handle: pthread_t

    /// Starts `body` on a new thread named `name` (cut to 15 bytes); nil when the system has
    /// no thread to give (errno is then pthread_create's error: EAGAIN, ENOMEM).
    static func start(name: String, _ body: @escaping @Sendable () -> Void) -> EngineThread? {
        final class Box: Sendable {
            let body: @Sendable () -> Void
            let name: String
            init(_ body: @escaping @Sendable () -> Void, name: String) { self.body = body; self.name = name }
        }
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, stackSize)
        let box = Unmanaged.passRetained(Box(body, name: String(decoding: name.utf8.prefix(nameLimit), as: UTF8.self))).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(&thread, &attributes, { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            _ = pthread_setname_np(pthread_self(), box.name)
            box.body()
            return nil
        }, box)
        guard started == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            errno = started
            return nil
        }
        return EngineThread(handle: thread)
    }

    /// The thread frees itself when it returns; nobody joins it.
    func detach() { pthread_detach(handle) }

    /// Waits until the thread has returned, at most `seconds`; true when it has. A thread still
    /// running then is detached (it frees itself when it returns) and false is returned.
    @discardableResult
    func join(within seconds: Double) -> Bool {
        var until = timespec()
        clock_gettime(CLOCK_REALTIME, &until)
        let whole = seconds.rounded(.down)
        until.tv_sec += Int(whole)
        until.tv_nsec += Int((seconds - whole) * 1e9)
        if until.tv_nsec >= 1_000_000_000 {
            until.tv_sec += 1
            until.tv_nsec -= 1_000_000_000
        }
        if pthread_timedjoin_np(handle, nil, &until) == 0 { return true }
        pthread_detach(handle)
        return false
    }
}

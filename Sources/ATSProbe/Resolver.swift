import DequeModule
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import TLSFacts

/// Name resolution off the reactor and off Swift's cooperative pool: getaddrinfo blocks and takes
/// no deadline, so lookups run on a small fixed pool of threads, and a caller waits for its answer
/// only until its deadline (or cancellation). A lookup that hangs keeps its pool thread, never the
/// caller; numeric addresses are converted in place without a thread. One per `ProbeRuntime`.
final class Resolver: HostResolver, @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var jobs = Deque<@Sendable () -> Void>()  // guarded by mutex
    private var stopping = false  // guarded by mutex

    deinit {
        // Each thread holds the resolver until it returns, so none is left using these.
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    init(threads: Int, threadName: String) {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
        for _ in 0..<threads {
            // Not joined: a thread inside getaddrinfo cannot be interrupted (see shutdown()).
            EngineThread.start(name: threadName, { [self] in work() })?.detach()
        }
    }

    /// Resolves `host` as TCPConnection.resolve does, within the deadline.
    func resolve(host: String, port: Int, deadline: Deadline) async throws(ProbeFailure) -> [TCPConnection.Address] {
        if Target.isIPAddress(host) { return try TCPConnection.resolve(host: host, port: port) }
        let reactor = ProbeRuntime.current.reactor
        let result: Answer? = await withTaskGroup(of: Answer?.self) { group in
            group.addTask { await self.lookup(host: host, port: port) }
            group.addTask {
                _ = await reactor.sleep(until: deadline)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        switch result {
        case .success(let addresses)?: return addresses
        case .failure(let failure)?: throw failure
        case nil:
            throw ProbeFailure(kind: .connectTimeout, detail: "\(host): name not resolved in time")
        }
    }

    typealias Answer = Result<[TCPConnection.Address], ProbeFailure>

    /// The pool's answer, or nil once the task is cancelled (the lookup itself runs on).
    private func lookup(host: String, port: Int) async -> Answer? {
        final class Slot: Sendable {
            let once = Mutex<ResumeOnce<Answer?>?>(nil)
        }
        let slot = Slot()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Answer?, Never>) in
                let once = ResumeOnce(continuation)
                slot.once.withLock { $0 = once }
                let accepted = submit {
                    once.resume(Result { () throws(ProbeFailure) in try TCPConnection.resolve(host: host, port: port) })
                }
                if !accepted || Task.isCancelled { once.resume(nil) }
            }
        } onCancel: {
            slot.once.withLock { $0 }?.resume(nil)
        }
    }

    /// Queues a lookup; false once the resolver is shut down.
    private func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard !stopping else { return false }
        jobs.append(job)
        pthread_cond_signal(condition)
        return true
    }

    /// Idle threads return at once; one inside getaddrinfo when its lookup returns.
    func shutdown() {
        pthread_mutex_lock(mutex)
        stopping = true
        jobs.removeAll()
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }

    private func work() {
        while true {
            pthread_mutex_lock(mutex)
            while jobs.isEmpty && !stopping { pthread_cond_wait(condition, mutex) }
            guard !stopping, let job = jobs.popFirst() else {
                pthread_mutex_unlock(mutex)
                return
            }
            pthread_mutex_unlock(mutex)
            job()
        }
    }
}

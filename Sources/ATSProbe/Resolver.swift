#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import TLSFacts

/// Name resolution off the reactor and off Swift's cooperative pool: getaddrinfo blocks and takes
/// no deadline, so lookups run on a small fixed pool of threads, and a caller waits for its answer
/// only until its deadline (or cancellation). A lookup that hangs keeps its pool thread, never the
/// caller; numeric addresses are converted in place without a thread.
final class Resolver: @unchecked Sendable {
    static let shared = Resolver(threads: 4)

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var jobs: [@Sendable () -> Void] = []  // guarded by mutex
    private var jobStart = 0

    init(threads: Int) {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
        for index in 0..<threads {
            _ = PThread.start(name: "atsprobe-dns-\(index)") { [self] in work() }
        }
    }

    /// Resolves `host` as TCPConnection.resolve does, within the deadline.
    func resolve(host: String, port: Int, deadline: Deadline) async throws(ProbeFailure) -> [TCPConnection.Address] {
        if Target.isIPAddress(host) { return try TCPConnection.resolve(host: host, port: port) }
        let result: Answer? = await withTaskGroup(of: Answer?.self) { group in
            group.addTask { await self.lookup(host: host, port: port) }
            group.addTask {
                _ = await Reactor.shared.sleep(until: deadline)
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
                submit {
                    once.resume(Result { () throws(ProbeFailure) in try TCPConnection.resolve(host: host, port: port) })
                }
                if Task.isCancelled { once.resume(nil) }
            }
        } onCancel: {
            slot.once.withLock { $0 }?.resume(nil)
        }
    }

    private func submit(_ job: @escaping @Sendable () -> Void) {
        pthread_mutex_lock(mutex)
        jobs.append(job)
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    private func work() {
        while true {
            pthread_mutex_lock(mutex)
            while jobStart == jobs.count { pthread_cond_wait(condition, mutex) }
            let job = jobs[jobStart]
            jobStart += 1
            if jobStart == jobs.count { jobs.removeAll(keepingCapacity: true); jobStart = 0 }
            pthread_mutex_unlock(mutex)
            job()
        }
    }
}

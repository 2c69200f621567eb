import DequeModule
#if canImport(Glibc)
import Glibc
#endif

/// The probe engine's own threads, about one per core: every probe task runs here (the runtime
/// sets this executor as the task's preference, which child tasks inherit), between its waits on
/// the reactor. Swift's global concurrent executor is shared with whatever else the process does
/// (an RSA key generated in a test, a file read by a command); a probe that had to queue behind
/// that work would see its deadlines pass while it was ready to run. Here only probes run, and
/// none blocks.
///
/// Jobs wait in one first-in-first-out `Deque` under a pthread mutex (the threads sleep on a
/// condition variable, which a Swift `Mutex` does not offer).
final class EngineExecutor: TaskExecutor, @unchecked Sendable {
    let threadCount: Int
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var jobs = Deque<UnownedJob>()  // guarded by mutex
    private var stopping = false  // guarded by mutex
    private var threads: [EngineThread] = []

    /// Starts `threads` threads named `name`.
    init(threads: Int, name: String) {
        threadCount = max(1, threads)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
        for _ in 0..<threadCount {
            guard let thread = EngineThread.start(name: name, { [self] in work() }) else {
                preconditionFailure("cannot start the engine's threads")
            }
            self.threads.append(thread)
        }
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        pthread_mutex_lock(mutex)
        guard !stopping else {
            pthread_mutex_unlock(mutex)
            // A task that still prefers this executor after its runtime was shut down (a
            // straggler the embedder did not await) runs on Swift's global executor rather than
            // never: dropping the job would leave its task suspended for ever.
            globalConcurrentExecutor.enqueue(ExecutorJob(job))
            return
        }
        jobs.append(job)
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Runs the jobs already queued, then stops and joins the threads (each at most `seconds`).
    /// Jobs enqueued afterwards go to Swift's global executor.
    func stop(within seconds: Double) {
        pthread_mutex_lock(mutex)
        stopping = true
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
        for thread in threads { thread.join(within: seconds) }
    }

    private func work() {
        while true {
            pthread_mutex_lock(mutex)
            while jobs.isEmpty && !stopping { pthread_cond_wait(condition, mutex) }
            guard let job = jobs.popFirst() else {
                pthread_mutex_unlock(mutex)
                return  // stopping, and nothing left to run
            }
            pthread_mutex_unlock(mutex)
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

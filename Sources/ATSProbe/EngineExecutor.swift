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
///
/// **Admission.** A probe's deadline is the server's: it must not be spent waiting for this
/// machine's CPU. When more probes are in flight than the threads can serve, every job waits
/// behind all the others, and a handshake's few steps each wait that long: at RTT 0 a
/// 1,000-target audit on 2 busy cores used to see most of its targets "time out" (303 of 1,000
/// answered at load 6). So each job carries the time it was queued, and `admit()` holds new
/// probes back, before their clock starts, while the oldest job queued has waited longer than
/// `Admission.saturatedLag`; waiting probes are let in as jobs come through having waited less
/// than `Admission.freeLag`, or at once when a thread finds nothing to do. Probes already running are
/// never held. Progress is guaranteed: a thread that would sleep with probes waiting lets some in
/// instead.
final class EngineExecutor: TaskExecutor, @unchecked Sendable {
    /// The lags (seconds) between which admission holds new probes back and lets them in again.
    enum Admission {
        /// Above this a new probe waits: its handshake's steps would each wait about as long.
        static let saturatedLag = 0.05
        /// Below this, one waiting probe is let in for each job run.
        static let freeLag = 0.01
        /// Probes let in at once by a thread that found the queue empty.
        static let burst = 16
    }

    private struct QueuedJob {
        let job: UnownedJob
        let enqueuedAt: Double
    }

    let threadCount: Int
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var jobs = Deque<QueuedJob>()  // guarded by mutex
    private var stopping = false  // guarded by mutex
    /// Probes waiting in `admit()`, first come first served (guarded by mutex).
    private var admissions = Deque<(id: UInt64, continuation: CheckedContinuation<Bool, Never>)>()
    private var nextAdmissionID: UInt64 = 0  // guarded by mutex
    /// Probes `admit()` has held back (tests).
    private var heldBack = 0  // guarded by mutex
    private var jobsTakenCount: UInt64 = 0  // guarded by mutex
    private var threads: [EngineThread] = []

    /// Starts `threads` threads named `name`. Throws when the system gives no thread (`ulimit
    /// -v`, `ulimit -u`): those already started are stopped and joined first.
    init(threads: Int, name: String) throws(RuntimeStartError) {
        threadCount = max(1, threads)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
        for _ in 0..<threadCount {
            guard let thread = EngineThread.start(name: name, { [self] in work() }) else {
                let code = errno
                stop(within: 10)
                throw RuntimeStartError(what: "the engine's threads", errno: code)
            }
            self.threads.append(thread)
        }
    }

    /// Jobs taken off the queue so far by any thread: the executor's progress, which the
    /// watchdog reads (RuntimeWatchdog). Counted under the lock the queue is taken under.
    var jobsTaken: UInt64 {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return jobsTakenCount
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let now = Deadline.now()
        pthread_mutex_lock(mutex)
        guard !stopping else {
            pthread_mutex_unlock(mutex)
            // A task that still prefers this executor after its runtime was shut down (a
            // straggler the embedder did not await) runs on Swift's global executor rather than
            // never: dropping the job would leave its task suspended for ever.
            globalConcurrentExecutor.enqueue(ExecutorJob(job))
            return
        }
        jobs.append(QueuedJob(job: job, enqueuedAt: now))
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Waits, before a probe's clock starts, until the threads keep up (see "Admission" above).
    /// False, having waited for nothing, when the task is cancelled while waiting.
    func admit() async -> Bool {
        let now = Deadline.now()
        pthread_mutex_lock(mutex)
        // The oldest job's wait so far: the threads' lag now, even while they are all busy with
        // long jobs (the last job taken out tells only how it was then).
        let behind = jobs.first.map { now - $0.enqueuedAt } ?? 0
        if stopping || (admissions.isEmpty && behind <= Admission.saturatedLag) {
            pthread_mutex_unlock(mutex)
            return true
        }
        nextAdmissionID += 1
        let id = nextAdmissionID
        pthread_mutex_unlock(mutex)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                pthread_mutex_lock(mutex)
                // Checked under the lock: the cancellation sets the flag before its handler takes
                // the lock, so either this sees the flag or the handler sees the waiter.
                let answer: Bool? = stopping ? true : Task.isCancelled ? false : nil
                if answer == nil {
                    admissions.append((id, continuation))
                    heldBack += 1
                }
                pthread_mutex_unlock(mutex)
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            pthread_mutex_lock(mutex)
            let index = admissions.firstIndex { $0.id == id }
            let waiter = index.map { admissions.remove(at: $0).continuation }
            pthread_mutex_unlock(mutex)
            waiter?.resume(returning: false)
        }
    }

    /// Probes `admit()` has held back so far, those waiting now, and how long the oldest job
    /// queued now has waited (tests).
    var admissionCounts: (heldBack: Int, waiting: Int, oldestWaitSeconds: Double) {
        let now = Deadline.now()
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return (heldBack, admissions.count, jobs.first.map { now - $0.enqueuedAt } ?? 0)
    }

    /// Runs the jobs already queued, then stops and joins the threads (each at most `seconds`).
    /// Jobs enqueued afterwards go to Swift's global executor; probes waiting for admission are let in.
    func stop(within seconds: Double) {
        pthread_mutex_lock(mutex)
        stopping = true
        let waiting = admissions
        admissions.removeAll()
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
        for waiter in waiting { waiter.continuation.resume(returning: true) }
        for thread in threads { thread.join(within: seconds) }
    }

    private func work() {
        var admitted: [CheckedContinuation<Bool, Never>] = []
        while true {
            pthread_mutex_lock(mutex)
            while jobs.isEmpty && !stopping {
                // About to sleep with probes waiting to start: let some in instead.
                if !admissions.isEmpty { break }
                pthread_cond_wait(condition, mutex)
            }
            let queued = jobs.popFirst()
            if queued != nil { jobsTakenCount &+= 1 }
            if !admissions.isEmpty {
                // The clock is read only with probes waiting: how long the job taken out waited.
                let letIn = queued.map { Deadline.now() - $0.enqueuedAt < Admission.freeLag ? 1 : 0 } ?? Admission.burst
                for _ in 0..<min(letIn, admissions.count) {
                    admitted.append(admissions.removeFirst().continuation)
                }
            }
            if queued == nil && admitted.isEmpty {
                pthread_mutex_unlock(mutex)
                return  // stopping, and nothing left to run
            }
            pthread_mutex_unlock(mutex)
            // Resumed outside the lock: a resumed probe's job is enqueued here, under it.
            for continuation in admitted { continuation.resume(returning: true) }
            admitted.removeAll(keepingCapacity: true)
            queued?.job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

import DequeModule
#if canImport(Glibc)
import Glibc
#endif

/// The probe engine's own threads, about one per core: every probe task runs here (the runtime
/// sets this executor as the task's preference, which child tasks inherit), between its waits on
/// the reactor, and these threads poll the reactor themselves. Swift's global concurrent
/// executor is shared with whatever else the process does (an RSA key generated in a test, a
/// file read by a command); a probe that had to queue behind that work would see its deadlines
/// pass while it was ready to run. Here only probes run, and none blocks.
///
/// Jobs wait in one first-in-first-out `Deque` under a pthread mutex (the threads sleep on a
/// condition variable, which a Swift `Mutex` does not offer).
///
/// **Leader/followers (issue 43, item 2).** There is no reactor thread. A thread with nothing
/// to run becomes the leader, if no thread leads, and waits in the reactor
/// (`Reactor.poll(blocking: true)`); the others with nothing to run sleep on the condition
/// variable (followers). What the leader's poll finds ready is resumed on the leader, and the
/// jobs that resumes are kept for it (`ready`), not queued for another thread; the leader
/// then gives up leadership and runs the first job itself, so a ready socket is handled by the
/// thread that saw it. The rest join the queue and wake as many followers as there are jobs
/// for them; leadership passes to the next thread that finds nothing to run (a follower woken
/// for a job, or the old leader once its job is done). A follower is thus woken only for work,
/// never only to lead: before, each ready socket cost two wake-ups (the reactor thread's and
/// the engine thread's it handed the job to), 93-101 context switches a target at 1,000
/// targets against the one-thread floor client's 25-47 (docs/performance.md).
/// - A thread busy with jobs while nobody leads polls without blocking every `pollInterval`
///   (before its next job), so ready sockets and passed deadlines are taken in while every
///   thread is busy, and the reactor's stall count sees a poll at least every heartbeat.
/// - Any other job enqueued (by a job on these threads, Swift's pool, a cancellation, the
///   watchdog) wakes a sleeping follower, or else the leader's wait (`Reactor.wakePoller`), as
///   the condition variable did before. (Leaving a job made by a running job to that thread
///   alone, to save the wake-up, held it behind long jobs while the other thread slept: in the
///   debug test suite, admission then held new probes back past a 0.3 s deadline.)
/// - Lock order: the queue's mutex is a leaf. No continuation is resumed, no job run and no
///   poll made while it is held (docs/design.md, "Locks and continuations").
///
/// **Admission.** A probe's deadline is the server's: it must not be spent waiting for this
/// machine's CPU. When more probes are in flight than the threads can serve, every job waits
/// behind all the others, and a handshake's few steps each wait that long: at RTT 0 a
/// 1,000-target audit on 2 busy cores used to see most of its targets "time out" (303 of 1,000
/// answered at load 6). So each job carries the time it was queued, and `admit()` holds new
/// probes back, before their clock starts, while the oldest job queued has waited longer than
/// `Admission.saturatedLag`; waiting probes are let in as jobs come through having waited less
/// than `Admission.freeLag`, or at once when a thread finds nothing to do. Probes already running are
/// never held. Progress is guaranteed: a thread that would sleep (or lead) with probes waiting
/// lets some in instead.
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

    /// While every thread is busy, how often (seconds) one of them polls the reactor without
    /// blocking before its next job.
    static let pollInterval = 0.001

    private struct QueuedJob {
        let job: UnownedJob
        let enqueuedAt: Double
    }

    /// What a thread does next, chosen under the mutex.
    private enum Step {
        case run(QueuedJob)
        case lead(blocking: Bool)
        case letIn
        case exit
    }

    let threadCount: Int
    private let reactor: Reactor
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var jobs = Deque<QueuedJob>()  // guarded by mutex
    private var stopping = false  // guarded by mutex
    /// A thread leads: it is in `Reactor.poll`, or about to be (guarded by mutex).
    private var leading = false
    /// The leader, while it leads (guarded by mutex).
    private var leader = pthread_t()
    /// The leader is in a blocking poll, so a job for no thread needs `wakePoller` (guarded by mutex).
    private var leaderBlocked = false
    /// `wakePoller` was called since the blocking poll began (guarded by mutex).
    private var leaderWoken = false
    /// Jobs the leader's poll made ready, for the leader (guarded by mutex).
    private var ready = Deque<QueuedJob>()
    /// Threads asleep on the condition variable (guarded by mutex).
    private var followers = 0
    /// When the last poll ended (guarded by mutex).
    private var lastPoll = 0.0
    /// Probes waiting in `admit()`, first come first served (guarded by mutex).
    private var admissions = Deque<(id: UInt64, continuation: CheckedContinuation<Bool, Never>)>()
    private var nextAdmissionID: UInt64 = 0  // guarded by mutex
    /// Probes `admit()` has held back (tests).
    private var heldBack = 0  // guarded by mutex
    private var jobsTakenCount: UInt64 = 0  // guarded by mutex
    private var threads: [EngineThread] = []

    /// Starts `threads` threads named `name`, which poll `reactor` among them. Throws when the
    /// system gives no thread (`ulimit -v`, `ulimit -u`): those already started are stopped and
    /// joined first.
    init(threads: Int, name: String, reactor: Reactor) throws(RuntimeStartError) {
        threadCount = max(1, threads)
        self.reactor = reactor
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
        for _ in 0..<threadCount {
            guard let thread = EngineThread.start(name: name, { [self] in work() }) else {
                let code = errno
                stop(within: 10)
                throw RuntimeStartError(.engineThreads, what: "the engine's threads", errno: code)
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
        if leading && pthread_equal(leader, pthread_self()) != 0 {
            // Made ready by the leader's poll (the leader enqueues only from inside it): the
            // leader runs it (no hand-off).
            ready.append(QueuedJob(job: job, enqueuedAt: now))
            pthread_mutex_unlock(mutex)
            return
        }
        jobs.append(QueuedJob(job: job, enqueuedAt: now))
        var wakeLeader = false
        if followers > 0 {
            pthread_cond_signal(condition)
        } else if leaderBlocked && !leaderWoken {
            leaderWoken = true
            wakeLeader = true
        }
        pthread_mutex_unlock(mutex)
        if wakeLeader { reactor.wakePoller() }
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

    /// Runs the jobs already queued, then stops and joins the threads (each at most `seconds`);
    /// true when every thread has returned (then nothing polls the reactor any more). Jobs
    /// enqueued afterwards go to Swift's global executor; probes waiting for admission are let in.
    @discardableResult
    func stop(within seconds: Double) -> Bool {
        pthread_mutex_lock(mutex)
        stopping = true
        let waiting = admissions
        admissions.removeAll()
        pthread_cond_broadcast(condition)
        let wakeLeader = leaderBlocked
        pthread_mutex_unlock(mutex)
        if wakeLeader { reactor.wakePoller() }
        for waiter in waiting { waiter.continuation.resume(returning: true) }
        var joined = true
        for thread in threads where !thread.join(within: seconds) { joined = false }
        return joined
    }

    private func work() {
        var admitted: [CheckedContinuation<Bool, Never>] = []
        var step = Step.exit
        while true {
            pthread_mutex_lock(mutex)
            step = next()
            if case .run(let queued) = step, !admissions.isEmpty {
                // The clock is read only with probes waiting: how long the job taken out waited.
                letIn(Deadline.now() - queued.enqueuedAt < Admission.freeLag ? 1 : 0, into: &admitted)
            } else if case .letIn = step {
                letIn(Admission.burst, into: &admitted)
            }
            pthread_mutex_unlock(mutex)
            // Resumed outside the lock: a resumed probe's job is enqueued here, under it.
            for continuation in admitted { continuation.resume(returning: true) }
            admitted.removeAll(keepingCapacity: true)
            switch step {
            case .run(let queued):
                queued.job.runSynchronously(on: asUnownedTaskExecutor())
            case .lead(let blocking):
                reactor.poll(blocking: blocking)
                let mine = endLeading(admitting: &admitted)
                for continuation in admitted { continuation.resume(returning: true) }
                admitted.removeAll(keepingCapacity: true)
                mine?.job.runSynchronously(on: asUnownedTaskExecutor())
            case .letIn:
                continue
            case .exit:
                return
            }
        }
    }

    /// Holding the mutex: this thread's next step, sleeping as a follower until there is one.
    private func next() -> Step {
        while true {
            if !jobs.isEmpty {
                if !leading && !stopping {
                    let now = Deadline.now()
                    if now - lastPoll >= EngineExecutor.pollInterval {
                        beginLeading(blocking: false)
                        return .lead(blocking: false)
                    }
                }
                jobsTakenCount &+= 1
                return .run(jobs.removeFirst())
            }
            // About to sleep (or wait in the reactor) with probes waiting to start: let some in.
            if !admissions.isEmpty { return .letIn }
            if stopping { return .exit }
            if !leading {
                beginLeading(blocking: true)
                return .lead(blocking: true)
            }
            followers += 1
            pthread_cond_wait(condition, mutex)
            followers -= 1
        }
    }

    /// Holding the mutex.
    private func beginLeading(blocking: Bool) {
        leading = true
        leader = pthread_self()
        leaderBlocked = blocking
        leaderWoken = false
    }

    /// After this thread's poll: gives up leadership and returns the job it runs next (the
    /// first its poll made ready, when no older job waits), queueing the others for followers.
    private func endLeading(admitting admitted: inout [CheckedContinuation<Bool, Never>]) -> QueuedJob? {
        let now = Deadline.now()
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        leading = false
        leaderBlocked = false
        lastPoll = now
        jobs.append(contentsOf: ready)
        ready.removeAll(keepingCapacity: true)
        guard let mine = jobs.popFirst() else { return nil }
        jobsTakenCount &+= 1
        // As for a job taken off the queue (`work`): one waiting probe let in if it waited little.
        if !admissions.isEmpty { letIn(now - mine.enqueuedAt < Admission.freeLag ? 1 : 0, into: &admitted) }
        // One follower for each job left, as many as sleep.
        for _ in 0..<min(jobs.count, followers) { pthread_cond_signal(condition) }
        return mine
    }

    /// Holding the mutex: takes up to `count` waiting probes to let in.
    private func letIn(_ count: Int, into admitted: inout [CheckedContinuation<Bool, Never>]) {
        for _ in 0..<min(count, admissions.count) {
            admitted.append(admissions.removeFirst().continuation)
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// The probe engine's own threads, about one per core: every probe task runs here (Prober.probe
/// sets it as the task executor preference, which child tasks inherit), between its waits on the
/// reactor. Swift's cooperative pool is shared with whatever else the process does (an RSA key
/// generated in a test, a file read by a command); a probe that had to queue behind that work
/// would see its deadlines pass while it was ready to run. Here only probes run, and none blocks.
final class EngineExecutor: TaskExecutor, @unchecked Sendable {
    static let shared = EngineExecutor(threads: max(2, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))

    let threadCount: Int
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var jobs: [UnownedJob] = []  // guarded by mutex; a FIFO with a moving start
    private var start = 0

    private init(threads: Int) {
        threadCount = threads
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
        for _ in 0..<threads {
            let started = PThread.start(name: "atsprobe-engine") { [self] in work() }
            precondition(started, "cannot start the engine's threads")
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        pthread_mutex_lock(mutex)
        jobs.append(job)
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    private func work() -> Never {
        while true {
            pthread_mutex_lock(mutex)
            while start == jobs.count { pthread_cond_wait(condition, mutex) }
            let job = jobs[start]
            start += 1
            if start == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                start = 0
            } else if start > 1024 && start * 2 > jobs.count {
                jobs.removeFirst(start)
                start = 0
            }
            pthread_mutex_unlock(mutex)
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

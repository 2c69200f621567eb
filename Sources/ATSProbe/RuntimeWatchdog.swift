#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The last guard against a stuck engine (issue 31, item 0): a thread outside Swift's
/// concurrency that asks, once a second, whether the runtime's executor and reactor still
/// answer, and says so when one has not for `stuckAfter` seconds of time the process could run
/// while the engine made no progress.
///
/// The question is a ping task: it starts on the runtime's executor, sleeps one millisecond on
/// the reactor (a timer the polling engine thread must fire) and is resumed on the executor
/// again, so it comes back only if the engine's threads still run and poll. A runtime
/// whose threads are deadlocked (the Resolver's lock-order inversion fixed in issue 31) never
/// answers. The watchdog sees no single probe: a probe that waits past its own deadline while
/// the threads run is caught by that deadline, not here.
///
/// A stop or a CPU quota is not a stall (issue 40, item 2). The time a ping waits is counted
/// (`WatchdogLedger`) only
/// - over the watchdog's own wake-ups that came on time: a wake-up more than
///   `interval + max(interval, 0.5 s)` after the previous one means no thread of the process
///   ran in between (SIGSTOP, a debugger; CLOCK_MONOTONIC itself stops while the machine
///   sleeps), so that gap says nothing about the engine;
/// - while the executor took no job off its queue: a ping queued behind thousands of jobs of a
///   starved process (a 1% CPU quota) waits long, but the engine is progressing; a deadlocked
///   or spinning executor takes none.
/// So the report means: for `stuckAfter` seconds the process was running, a ping waited, and
/// not one job was started.
///
/// A runtime that is shutting down is not pinged (its threads are meant to stop), and the
/// watchdog thread ends with it.
final class RuntimeWatchdog: Sendable {
    private let ledger: Mutex<WatchdogLedger>

    private init(stuckAfter: Double, interval: Double) {
        ledger = Mutex(WatchdogLedger(stuckAfter: stuckAfter, interval: interval))
    }

    /// Starts the thread; nil when the system has no thread to give (the run goes on unguarded).
    static func start(on runtime: ProbeRuntime, stuckAfter: Double, interval: Double,
                      onStuck: @escaping @Sendable (_ seconds: Double) -> Void) -> RuntimeWatchdog? {
        let watchdog = RuntimeWatchdog(stuckAfter: stuckAfter, interval: interval)
        // The runtime is held weakly: the watchdog must not keep an embedder's runtime alive.
        weak let weakRuntime = runtime
        guard let thread = EngineThread.start(name: runtime.configuration.threadNamePrefix + "-watch", {
            while let runtime = weakRuntime, !runtime.isShutDown {
                if let stuckFor = watchdog.tick(runtime) {
                    onStuck(stuckFor)
                    return
                }
                var pause = timespec(tv_sec: Int(interval), tv_nsec: Int((interval - interval.rounded(.down)) * 1e9))
                var left = timespec()
                while nanosleep(&pause, &left) != 0 && errno == EINTR { pause = left }
            }
        }) else { return nil }
        thread.detach()
        return watchdog
    }

    /// Pings answered so far (tests).
    var pingsAnswered: Int { ledger.withLock { $0.pingsAnswered } }

    /// One look: sends a ping when none is in flight; returns how long the one in flight has
    /// gone unanswered, counted as `WatchdogLedger` does, once that is `stuckAfter` or more (once).
    private func tick(_ runtime: ProbeRuntime) -> Double? {
        let now = Deadline.now()
        let jobsTaken = runtime.executor.jobsTaken
        switch ledger.withLock({ $0.tick(now: now, jobsTaken: jobsTaken) }) {
        case .wait: return nil
        case .report(let seconds): return seconds
        case .sendPing:
            let reactor = runtime.reactor
            Task(executorPreference: runtime.executor) { [self] in
                _ = await reactor.sleep(until: Deadline(secondsFromNow: 0.001))
                ledger.withLock { $0.answered() }
            }
            return nil
        }
    }
}

/// The watchdog's bookkeeping, apart from its thread and clock (tests drive it with their own
/// instants): see `RuntimeWatchdog` for what is counted and why.
struct WatchdogLedger {
    enum Action: Equatable {
        case sendPing
        case wait
        case report(Double)
    }

    let stuckAfter: Double
    let interval: Double
    private var lastTick: Double?
    private var pingInFlight = false
    /// The executor's `jobsTaken` when last seen.
    private var jobsSeen: UInt64 = 0
    /// Seconds the ping in flight has waited while the process ran and the executor took no job.
    private(set) var stalled = 0.0
    private var reported = false
    private(set) var pingsAnswered = 0

    init(stuckAfter: Double, interval: Double) {
        self.stuckAfter = stuckAfter
        self.interval = interval
    }

    /// A gap between two wake-ups longer than this: the process did not run in between.
    var missedAfter: Double { interval + max(interval, 0.5) }

    mutating func tick(now: Double, jobsTaken: UInt64) -> Action {
        let gap = lastTick.map { now - $0 } ?? 0
        lastTick = now
        guard pingInFlight else {
            pingInFlight = true
            jobsSeen = jobsTaken
            stalled = 0
            return .sendPing
        }
        if jobsTaken != jobsSeen {
            // The executor is working through its queue: slow (starved), not stuck.
            jobsSeen = jobsTaken
            stalled = 0
            return .wait
        }
        // A late wake-up: the process was stopped or not scheduled; that time is not the engine's.
        if gap <= missedAfter { stalled += gap }
        guard stalled >= stuckAfter, !reported else { return .wait }
        reported = true
        return .report(stalled)
    }

    mutating func answered() {
        pingInFlight = false
        pingsAnswered += 1
    }
}
extension ProbeRuntime {
    /// Guards the process against a stuck runtime: once a second a thread of its own checks
    /// that this runtime's engine threads still run jobs and poll the reactor (RuntimeWatchdog), and
    /// calls `onStuck` (on that thread) with the seconds waited once they have not for
    /// `stuckAfter` seconds while the process ran and the executor started no job (a stop or a
    /// CPU quota is not counted). The command line ends the process there with exit status 70 and one
    /// line, instead of sleeping for ever (docs/robustness.md, "A stuck engine").
    package func startWatchdog(stuckAfter: Double = 10, onStuck: @escaping @Sendable (_ seconds: Double) -> Void) {
        _ = RuntimeWatchdog.start(on: self, stuckAfter: stuckAfter, interval: 1, onStuck: onStuck)
    }
}

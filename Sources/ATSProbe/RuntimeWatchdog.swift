#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The last guard against a stuck engine (issue 31, item 0): a thread outside Swift's
/// concurrency that asks, once a second, whether the runtime's executor and reactor still
/// answer, and says so when one has not for `stuckAfter` seconds.
///
/// The question is a ping task: it starts on the runtime's executor, sleeps one millisecond on
/// the reactor (a timer the reactor thread must fire) and is resumed on the executor again, so
/// it comes back only if an executor thread and the reactor thread both still run. A healthy
/// runtime answers within milliseconds, whatever its load (its jobs are short slices between
/// waits); a runtime whose threads are deadlocked (the Resolver's lock-order inversion fixed in
/// issue 31) never answers. The watchdog sees no single probe: a probe that waits past its own
/// deadline while the threads run is caught by that deadline, not here.
///
/// A runtime that is shutting down is not pinged (its threads are meant to stop), and the
/// watchdog thread ends with it.
final class RuntimeWatchdog: Sendable {
    private struct State {
        /// When the ping in flight was sent; nil when none is.
        var pingSentAt: Double?
        var pingsAnswered = 0
        var reported = false
    }

    private let state = Mutex(State())
    private let stuckAfter: Double

    private init(stuckAfter: Double) { self.stuckAfter = stuckAfter }

    /// Starts the thread; nil when the system has no thread to give (the run goes on unguarded).
    static func start(on runtime: ProbeRuntime, stuckAfter: Double, interval: Double,
                      onStuck: @escaping @Sendable (_ seconds: Double) -> Void) -> RuntimeWatchdog? {
        let watchdog = RuntimeWatchdog(stuckAfter: stuckAfter)
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
    var pingsAnswered: Int { state.withLock { $0.pingsAnswered } }

    /// One look: sends a ping when none is in flight; returns how long the one in flight has
    /// gone unanswered once that is `stuckAfter` or more (once).
    private func tick(_ runtime: ProbeRuntime) -> Double? {
        let now = Deadline.now()
        let (send, stuckFor) = state.withLock { state -> (Bool, Double?) in
            guard let sent = state.pingSentAt else {
                state.pingSentAt = now
                return (true, nil)
            }
            guard now - sent >= stuckAfter, !state.reported else { return (false, nil) }
            state.reported = true
            return (false, now - sent)
        }
        if send {
            let reactor = runtime.reactor
            Task(executorPreference: runtime.executor) { [self] in
                _ = await reactor.sleep(until: Deadline(secondsFromNow: 0.001))
                state.withLock { state in
                    state.pingSentAt = nil
                    state.pingsAnswered += 1
                }
            }
        }
        return stuckFor
    }
}

extension ProbeRuntime {
    /// Guards the process against a stuck runtime: once a second a thread of its own checks
    /// that this runtime's executor and reactor threads still answer (RuntimeWatchdog), and
    /// calls `onStuck` (on that thread) with the seconds waited once they have not for
    /// `stuckAfter` seconds. The command line ends the process there with exit status 70 and one
    /// line, instead of sleeping for ever (docs/robustness.md, "A stuck engine").
    public func startWatchdog(stuckAfter: Double = 10, onStuck: @escaping @Sendable (_ seconds: Double) -> Void) {
        _ = RuntimeWatchdog.start(on: self, stuckAfter: stuckAfter, interval: 1, onStuck: onStuck)
    }
}

/// A probe runtime's clock: `ContinuousClock`'s instants, its sleeps the reactor's timers, and
/// its tasks the engine's threads' (`taskExecutor`). What an audit's scheduler runs on
/// (`AuditScheduler`): each target's deadline is then one entry in the reactor's timer heap,
/// where `ContinuousClock.sleep` registered a libdispatch timer (a write to libdispatch's
/// manager thread, which woke to arm it) and resumed the target's task on Swift's global pool
/// (issue 43, docs/performance.md "Wake-ups").
package struct EngineClock: Clock {
    package typealias Instant = ContinuousClock.Instant
    package typealias Duration = Swift.Duration

    private let runtime: ProbeRuntime

    package init(runtime: ProbeRuntime) { self.runtime = runtime }

    package var now: Instant { ContinuousClock.now }
    package var minimumResolution: Duration { .milliseconds(1) }

    /// The runtime's engine threads, for the tasks that sleep on this clock.
    package var taskExecutor: any TaskExecutor { runtime.executor }

    /// Throws `CancellationError` when the task is cancelled first, as `Task.sleep` does.
    package func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let left = ContinuousClock.now.duration(to: deadline).components
        let seconds = Double(left.seconds) + Double(left.attoseconds) / 1e18
        switch await runtime.reactor.sleep(until: Deadline(secondsFromNow: seconds)) {
        case .timedOut, .ready:
            return
        case .cancelled:
            if Task.isCancelled { throw CancellationError() }
            // The runtime was shut down (its reactor ends every wait at once): the time still
            // has to pass, or a deadline would pass early.
            try await ContinuousClock().sleep(until: deadline, tolerance: tolerance)
        }
    }
}

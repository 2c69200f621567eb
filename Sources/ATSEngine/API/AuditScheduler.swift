import ATSProbe
import TLSFacts

/// Runs an audit: targets in (an `AsyncSequence`, read as they come, never whole), events out
/// as each target starts and finishes, under `AuditLimits`: at most `concurrency` targets in
/// flight and `perHost` per host, starts spaced by `rate`, each run cancelled at its deadline,
/// only this run's shard. One in, one out: a target enters when one leaves.
///
/// A target holds its slot until its result has been handled (the `onEvent` call returned, or
/// the `results` consumer took it), so a slow reader slows the run instead of growing memory.
public struct AuditScheduler<Work: AuditWork, C: Clock>: Sendable where C.Duration == Duration {
    public let limits: AuditLimits
    public let work: Work
    public let clock: C

    public init(limits: AuditLimits, work: Work, clock: C) {
        self.limits = limits
        self.work = work
        self.clock = clock
    }

    /// On a probe runtime's clock (`EngineClock`), the scheduler's loop and every target's task
    /// run on the runtime's engine threads, where the targets' handshakes run: a target that
    /// ends resumes the loop, and the loop starts the next target, with no hop to Swift's
    /// global pool and back (issue 43). nil on any other clock (Swift's global pool).
    private var engine: (any TaskExecutor)? { (clock as? EngineClock)?.taskExecutor }

    /// Runs every job of `jobs` and returns when all have reported. `onEvent` is called from
    /// several tasks at once (results arrive from the targets' own tasks, while the input may
    /// still be waiting for its next line); a target's slot is held until its call returns.
    public func run<Tag: Sendable, Jobs: AsyncSequence<AuditJob<Tag>, Never>>(
        _ jobs: Jobs, onEvent: @escaping @Sendable (AuditEvent<Tag, Work.Report>) async -> Void
    ) async {
        var rateLimiter = AuditRateLimiter(perSecond: limits.rate, clock: clock)
        // Targets whose host is at --per-host wait here, not in the task group, so they never
        // hold a --concurrency slot another host could use.
        var parked = AuditParking<Tag>(perHost: limits.perHost, capacity: limits.queueCapacity)
        let concurrency = limits.concurrency
        await withTaskGroup(of: String.self) { group in
            var inFlight = 0
            func launch(_ item: AuditParking<Tag>.Item) async {
                await rateLimiter.wait()
                // Not started while the probe engine is behind: its deadline would run while it
                // waited for this machine (EngineExecutor, "Admission"). Cancelled while waiting,
                // it starts and ends at once as the run's other targets do.
                _ = await work.admitted()
                inFlight += 1
                await onEvent(.started(item.tag, item.target))
                group.addTask(executorPreference: engine) {
                    // A target cut by the run's cancellation reports nothing (see `attempt`).
                    if let event = await self.attempt(item.target, tag: item.tag) { await onEvent(event) }
                    return item.host
                }
            }
            /// Waits for one target to finish, then starts what its freed slots allow.
            func finishOne() async {
                guard let host = await group.next() else { return }
                inFlight -= 1
                parked.finished(host)
                while inFlight < concurrency, !Task.isCancelled, let ready = parked.nextReady() { await launch(ready) }
            }

            for await job in jobs {
                // Cancelled (the consumer went, a signal): read no further, start nothing more.
                if Task.isCancelled { break }
                switch job.content {
                case .rejected(let reason, let shardKey):
                    if limits.shard.owns(key: shardKey) { await onEvent(.rejected(job.tag, reason: reason)) }
                    continue
                case .target(let target):
                    guard limits.shard.owns(key: AuditShard.key(of: target)) else { continue }
                    parked.add(AuditParking.Item(tag: job.tag, target: target, host: target.connectAddress ?? target.host))
                }
                while inFlight < concurrency, !Task.isCancelled, let ready = parked.nextReady() { await launch(ready) }
                // One in, one out: never more than `concurrency` in flight or a full queue.
                while (inFlight >= concurrency || parked.isFull) && inFlight > 0 { await finishOne() }
            }
            while inFlight > 0 { await finishOne() }
        }
    }

    /// The events of `run`, as an `AsyncSequence` with one consumer. Each target waits, holding
    /// its slot, until the consumer has taken its result. Ending the iteration early (or
    /// cancelling the consuming task) cancels the run: targets in flight are cancelled.
    public func results<Tag: Sendable, Jobs: AsyncSequence<AuditJob<Tag>, Never> & Sendable>(
        for jobs: Jobs
    ) -> AuditResults<AuditEvent<Tag, Work.Report>> {
        let channel = AuditHandoff<AuditEvent<Tag, Work.Report>>()
        let scheduler = self
        channel.start(on: engine) {
            await scheduler.run(jobs) { await channel.send($0) }
        }
        return AuditResults(channel: channel)
    }

    /// One target: run under the deadline, again after a local failure (up to `localRetries`
    /// times, waiting longer each time), and turned into the event that reports it; nil when
    /// the run was cancelled (a signal, the consumer gone) before the target's event was made.
    /// Its loads were then cut short: the report would judge the server on cancelled
    /// handshakes (a good server written as "exception" or "unreachable"), and "timed out"
    /// would be false too (the deadline's sleep ends at once when cancelled). A run that ends
    /// early writes only targets that finished (docs/exit-codes.md, issue 24).
    func attempt<Tag: Sendable>(_ target: Target, tag: Tag) async -> AuditEvent<Tag, Work.Report>? {
        let work = self.work
        /// One run under the deadline, with the seconds this machine did not run meanwhile.
        func run() async -> (Work.Report?, stalled: Double) {
            let before = work.stalledSeconds
            let report = await withDeadline(seconds: limits.deadlineSeconds, clock: clock) { await work.audit(target) }
            return (report, work.stalledSeconds - before)
        }
        /// The deadline passed while this process was stopped or starved: not the server's.
        func stoppedPastItsDeadline(_ report: Work.Report?, _ stalled: Double) -> Bool {
            report == nil && stalled >= AuditLimits.stallThreshold
        }
        var (report, stalled) = await run()
        var attempt = 0
        // Out of descriptors or memory here, or stopped past the deadline: the server is not to
        // blame. Try again once other targets have had time to give theirs back.
        while attempt < limits.localRetries, !Task.isCancelled,
              stoppedPastItsDeadline(report, stalled) || report.map({ work.localFailure(of: $0) != nil }) == true {
            attempt += 1
            try? await clock.sleep(until: clock.now.advanced(by: limits.retryBackoff * attempt), tolerance: nil)
            if Task.isCancelled { break }
            (report, stalled) = await run()
        }
        // `withDeadline` cancels only its own child tasks, never this one: cancelled here is the
        // run's cancellation, not the target's deadline (which is `report == nil`).
        if Task.isCancelled { return nil }
        if stoppedPastItsDeadline(report, stalled) {
            let seconds = (stalled * 10).rounded() / 10
            return .failedLocally(tag, target, ProbeFailure(
                kind: .localResources,
                detail: "this machine did not run for \(seconds) s before the target's deadline (the process was stopped or starved of CPU)"))
        }
        guard let report else { return .timedOut(tag, target) }
        if let failure = work.localFailure(of: report) { return .failedLocally(tag, target, failure) }
        // Cut short on this side while the run went on (its probe runtime shut down): no verdict.
        if let failure = work.interruption(of: report) { return .failedLocally(tag, target, failure) }
        return .finished(tag, target, report)
    }
}

extension AuditScheduler where C == ContinuousClock {
    public init(limits: AuditLimits, work: Work) {
        self.init(limits: limits, work: work, clock: ContinuousClock())
    }
}

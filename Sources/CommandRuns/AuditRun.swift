import ATSCommandOutputs
import ATSEngine
import ATSFiles
import ATSProbe
import ATSReport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport
import TLSFacts

/// `atsprobe audit` once its options are parsed and its sink opened: the targets through the
/// scheduler into the sink, as each finishes; a signal stops the run cleanly (AuditInterrupts);
/// the probe runtime is shut down before the exit status is returned.
package enum AuditRun {
    package static func run<Progress: AuditProgressDisplay>(
        _ source: AuditInput, context: RunContext, runner: DiagnosticsRunner, limits: AuditLimits, sink: AuditSink<Progress>,
        ticking: Bool, interrupts: AuditInterrupts, runtime: ProbeRuntime, failOn: AuditFailOnChoice
    ) async throws -> ExitStatus {
        // Redraws the progress line twice a second, so a silent host's time is seen growing.
        let ticker = ticking ? Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(500))
                await sink.tick()
            }
        } : nil
        defer { ticker?.cancel() }

        // On the runtime's clock: the targets' deadlines are reactor timers, their tasks the
        // engine's (issue 43).
        let scheduler = AuditScheduler(limits: limits, work: runner, clock: EngineClock(runtime: runtime))
        // Each line is parsed against the context: no option is parsed again per target.
        let jobs = AuditJobs(source: source) { try context.target($0) }
        let results = scheduler.results(for: jobs)
        interrupts.onSignal { results.cancel() }
        for await event in results {
            switch event {
            case .started(let entry, let target): await sink.started(entry, name: target.authority)
            case .finished(let entry, _, let report): await sink.finished(DiagnosticsJSON(report, run: sink.run), entry: entry)
            case .timedOut(let entry, let target): await sink.timedOut(TargetReport(target), deadline: limits.deadlineSeconds, entry: entry)
            case .failedLocally(let entry, let target, let failure): await sink.failedLocally(entry, target: target, failure: failure)
            case .rejected(let entry, let reason): await sink.rejected(entry, message: reason)
            }
        }
        // Every target's task has returned (on a signal: cancelled, their sockets closed).
        await results.ended()
        ticker?.cancel()
        if let signal = interrupts.received {
            try await sink.interrupted(signalName: signal.name)
            // The engine's threads stop before the process exits: exit() tears OpenSSL down.
            try? await runtime.shutdown()
            return signal.status
        }
        try await sink.finish()
        try? await runtime.shutdown()
        // Targets read before the error have their records; the run still fails (64).
        if let failure = source.failure { throw failure }
        return ReportGate.auditStatus(failOn, tally: await sink.tally, comparison: await sink.comparison,
                                     soonestWorsening: await sink.soonestWorseningSeconds)
    }

    /// --concurrency, --per-host, --rate and --deadline, each within its bounds (else 64, naming it).
    package static func checkLimits(concurrency: Int, perHost: Int, rate: Double?, deadline: Double) throws {
        guard concurrency >= 1, concurrency <= 4096 else { throw InputError(.badArgument, "--concurrency must be between 1 and 4096, got \(concurrency)") }
        guard perHost >= 1 else { throw InputError(.badArgument, "--per-host must be at least 1, got \(perHost)") }
        // The floor keeps 1/rate a representable Duration (1e-10 trapped converting to Int64).
        if let rate, !(rate >= 0.001 && rate <= 100_000) { throw InputError(.badArgument, "--rate must be between 0.001 and 100000 per second, got \(rate)") }
        guard deadline > 0, deadline <= 86_400 else { throw InputError(.badArgument, "--deadline must be between 0 and 86400 seconds, got \(deadline)") }
    }

    /// The run's metadata, with the --input file SARIF places results in, the anchors by
    /// content and the options that change a verdict (what a comparable baseline needs).
    package static func runInfo(context: RunContext, runner: DiagnosticsRunner, input: String?, connection: ConnectionSettings) -> RunInfo {
        var run = RunInfo(context: context, ruleSet: context.ruleSet.id)
        if let input, input != "-" { run.input = input }
        run.anchorsDigest = runner.prober.anchorsDigest
        run.verdictOptions = connection.verdictOptions(ruleSet: context.ruleSet.id, judgedAt: run.judgedAt)
        return run
    }

    /// `--shard K/N` (or auto/N, from a Kubernetes Indexed Job's JOB_COMPLETION_INDEX).
    package static func share(_ text: String) throws -> AuditShard {
        switch AuditShard.parse(text, jobCompletionIndex: ProcessInfo.processInfo.environment[AuditShard.jobIndexVariable]) {
        case .success(let share): return share
        case .failure(let refusal): throw InputError(.badArgument, refusal.description)
        }
    }
}

/// The input's entries as the scheduler's jobs: each parsed as a target (with --connect-to and
/// the other connection options), or rejected with the reason, numbered for sharding.
struct AuditJobs: AsyncSequence, Sendable {
    typealias Element = AuditJob<AuditEntry>
    typealias Failure = Never
    let source: AuditInput
    let parse: @Sendable (String) throws -> Target

    struct AsyncIterator: AsyncIteratorProtocol {
        typealias Failure = Never
        let source: AuditInput
        let parse: @Sendable (String) throws -> Target

        /// Each target's first place (input line or argument), by its URL: a target named twice is
        /// refused at its second line (64, the rest go on), as `report --diff` refuses a run that
        /// holds it twice (issue 42).
        var named: [String: String] = [:]

        mutating func next() async -> AuditJob<AuditEntry>? {
            guard let entry = await source.next() else { return nil }
            do {
                if let defect = entry.defect { throw InputError(.badContents, defect) }
                let target = try parse(entry.text)
                let place = entry.line.map { "line \($0)" } ?? "argument \(entry.position)"
                if let first = named[target.url] {
                    throw InputError(.badContents, "names '\(UntrustedText.escape(target.url, limit: 300))' as \(first) does: a run audits each target once; remove one of the lines")
                }
                named[target.url] = place
                return .target(target, tag: entry)
            } catch {
                let message = (error as? InputError)?.message ?? String(describing: error)
                return .rejected(message, shardKey: "#\(entry.position)", tag: entry)
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(source: source, parse: parse) }
}

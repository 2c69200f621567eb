import ATSFiles
import ATSCommandOutputs
import ATSReport
import ArgumentParser
import ATSEngine
import ATSPolicy
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport
import TLSFacts

extension ATSProbeCommand {
    /// `atsprobe audit [--input FILE|-] [TARGET...]`: nscurl's diagnostics for many targets at
    /// once, bounded, streamed as JSON Lines as each target finishes.
    struct Audit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "audit",
            abstract: "Audit many targets at once; one result per target, streamed as each finishes.",
            discussion: """
            Targets come from the arguments, then from --input (a file, or - for standard input): one per \
            line, as HOST, HOST:PORT or URL; blank lines and lines starting with # are skipped. A bad line is \
            reported with its number and the rest go on. --format json writes JSON Lines (see docs/audit.md); \
            --format plist writes one merged NSExceptionDomains dictionary; \(AuditFormats.formats.filter { !AuditFormats.streamed.contains($0) }.map(\.rawValue).joined(separator: ", ")) \
            write a report (docs/reports.md) once every target is done, the metrics ones (openmetrics: OpenMetrics 1.0; prometheus: the 0.0.4 text \
            node_exporter's textfile collector reads) the run as metrics, --metrics-label run=nightly adding a label to every series (docs/monitoring.md). \
            --forecast 90d adds when each target's verdict changes (docs/forecast.md). --baseline OLD.jsonl compares with an earlier run.
            Exit codes (narrowed by --fail-on; with --fail-on new, 1 only when a target got worse than in --baseline): 0 every target passes; 1 a target needs an exception or cannot \
            load; 2 a target is unreachable or timed out; 64 bad options or bad input lines.
            """
        )

        @Argument(help: "URL, HOST, HOST:PORT or [IPv6]:PORT; several allowed.")
        var targets: [String] = []

        @Option(name: .long, help: ArgumentHelp("Read targets from FILE, one per line; - reads standard input.", valueName: "file"), completion: .file())
        var input: String?

        @Option(name: .long, help: ArgumentHelp("Targets audited at once, in all.", valueName: "n"))
        var concurrency: Int = 32

        @Option(name: .customLong("per-host"), help: ArgumentHelp("Targets of one host (or --connect-to address) audited at once.", valueName: "n"))
        var perHost: Int = 2

        @Option(name: .long, help: ArgumentHelp("Start at most N targets per second (default: no limit).", valueName: "n"))
        var rate: Double?

        @Option(name: .long, help: ArgumentHelp("Seconds one target may take in all; then it is reported as timed out.", valueName: "seconds"))
        var deadline: Double = 60

        @Option(name: .long, help: ArgumentHelp("Take the K-th of N shares of the input (K/N, 1-based), for N machines; auto/N takes K from JOB_COMPLETION_INDEX + 1 (a Kubernetes Indexed Job).", valueName: "k/n"))
        var shard: String?

        @Option(name: .long, help: ArgumentHelp("Also write the JSON Lines records to FILE, whatever --format is; `atsprobe report FILE` renders them again.", valueName: "file"), completion: .file())
        var records: String?

        @Option(name: .customLong("fail-on"), help: "Which findings fail the run: none, unreachable, exception, any; new (with --baseline): only what got worse; absent (with --baseline): what got worse and a baseline target no longer audited; expiring:DURATION (e.g. expiring:30d): as any, and also a target whose --forecast loads worse within DURATION.")
        var failOn: AuditFailOnChoice = .level(.any)

        @Option(name: .long, help: ArgumentHelp("Compare with an earlier run's JSON Lines (--records, --format json, or report --baseline-of): each target new, fixed, changed or unchanged. It must be comparable (the same rule set, --at, anchors and verdict options, and older).", valueName: "file"), completion: .file())
        var baseline: String?

        @Flag(name: .customLong("compare-anyway"), help: "With --baseline: compare a baseline recorded under other options (or newer) all the same; every output says so first.")
        var compareAnyway = false

        @OptionGroup var sarif: SARIFOptions

        @OptionGroup var diagnostics: DiagnosticsArguments
        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions<AuditFormats>
        @OptionGroup var forecast: ForecastOptions
        @OptionGroup var metrics: MetricsOptions
        @OptionGroup var colors: ColorOptions

        func run() async throws {
            try await ATSProbeCommand.guarded { try await audit() }
        }

        private func audit() async throws -> ExitStatus {
            // First, so a signal during setup is seen too (the run then stops at once).
            let interrupts = AuditInterrupts()
            defer { interrupts.cancel() }
            try checkOptions()
            let runtime = try CommandRuntime.runtime
            let concurrency = AuditLimits.concurrencyAllowed(asked: self.concurrency, budget: runtime.descriptorBudget)
            if concurrency < self.concurrency {
                Diagnostics.warn("--concurrency \(self.concurrency) needs more open files than the limit allows (ulimit -n); using \(concurrency)")
            }
            let context = try connection.context(ruleSet: try diagnostics.ruleSet(),
                                                 forecastHorizonSeconds: try forecast.horizonSeconds(atLeast: failOn.expiringSeconds))
            let share = try shard.map(Self.share) ?? .whole
            let source = try AuditInput(arguments: targets, path: input, option: "--input")
            let runner = try context.runner(naming: connection)
            let run = runInfo(context: context, runner: runner)
            // Read and checked against this run before any connection: a missing, bad or
            // incomparable baseline is 64 at once.
            let baseline = try AuditBaseline.read(self.baseline, failOn: failOn, run: run, compareAnyway: compareAnyway)
            var progress = AuditProgress.onTerminal(quiet: diagnostics.quiet)
            if progress.enabled { progress.expected = AuditInput.expectedCount(arguments: targets, path: input) }
            let format = output.effectiveFormat
            let metricsLabels = try metrics.labels(format: format)
            // --output is replaced when the run ends (or is interrupted): until then the old file stays whole.
            let replacement = try output.output.map { try FileReplacement.begin($0) }
            let sink = AuditSink(format: format, verbose: diagnostics.verbose, quiet: diagnostics.quiet,
                                 palette: colors.palette(format: format, path: output.output),
                                 run: run,
                                 output: replacement?.stream ?? .standardOutput,
                                 records: try records.map { try FileStream(creating: $0) }, errors: .standardError,
                                 progress: progress, baseline: baseline,
                                 junitCases: diagnostics.junitCases.cases, sarifCategory: try sarif.category(format: format),
                                 metricsLabels: metricsLabels, replacement: replacement)
            // Redraws the progress line twice a second, so a silent host's time is seen growing.
            let ticker = progress.enabled ? Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(500))
                    await sink.tick()
                }
            } : nil
            defer { ticker?.cancel() }

            let scheduler = AuditScheduler(
                limits: AuditLimits(concurrency: concurrency, perHost: perHost, rate: rate, deadlineSeconds: deadline, shard: share),
                work: runner)
            // Each line is parsed against the context: no option is parsed again per target.
            let jobs = AuditJobs(source: source) { try context.target($0) }
            let results = scheduler.results(for: jobs)
            interrupts.onSignal { results.cancel() }
            for await event in results {
                switch event {
                case .started(let entry, let target): await sink.started(entry, name: target.authority)
                case .finished(let entry, _, let report): await sink.finished(report, entry: entry)
                case .timedOut(let entry, let target): await sink.timedOut(TargetReport(target), deadline: deadline, entry: entry)
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
            return AuditBaseline.status(failOn, tally: await sink.tally, comparison: await sink.comparison,
                                        soonestWorsening: await sink.soonestWorseningSeconds)
        }

        /// The run's metadata, with the --input file SARIF places results in, the anchors by
        /// content and the options that change a verdict (what a comparable baseline needs).
        private func runInfo(context: RunContext, runner: DiagnosticsRunner) -> RunInfo {
            var run = RunInfo(context: context, ruleSet: context.ruleSet.id)
            if let input, input != "-" { run.input = input }
            run.anchorsDigest = runner.prober.anchorsDigest
            run.verdictOptions = connection.verdictOptions(ruleSet: context.ruleSet.id, judgedAt: run.judgedAt)
            return run
        }

        static func share(_ text: String) throws -> AuditShard {
            switch AuditShard.parse(text, jobCompletionIndex: ProcessInfo.processInfo.environment[AuditShard.jobIndexVariable]) {
            case .success(let share): return share
            case .failure(let refusal): throw InputError(refusal.description)
            }
        }

        private func checkOptions() throws {
            guard concurrency >= 1, concurrency <= 4096 else { throw InputError("--concurrency must be between 1 and 4096, got \(concurrency)") }
            guard perHost >= 1 else { throw InputError("--per-host must be at least 1, got \(perHost)") }
            // The floor keeps 1/rate a representable Duration (1e-10 trapped converting to Int64).
            if let rate, !(rate >= 0.001 && rate <= 100_000) { throw InputError("--rate must be between 0.001 and 100000 per second, got \(rate)") }
            guard deadline > 0, deadline <= 86_400 else { throw InputError("--deadline must be between 0 and 86400 seconds, got \(deadline)") }
            guard input != nil || !targets.isEmpty else { throw InputError("give targets as arguments or with --input FILE (- for standard input)") }
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
                if let defect = entry.defect { throw InputError(defect) }
                let target = try parse(entry.text)
                let place = entry.line.map { "line \($0)" } ?? "argument \(entry.position)"
                if let first = named[target.url] {
                    throw InputError("names '\(UntrustedText.escape(target.url, limit: 300))' as \(first) does: a run audits each target once; remove one of the lines")
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


import ATSFiles
import CommandRuns
import ATSCommandOutputs
import ATSReport
import ArgumentParser
import ATSEngine

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
            try AuditRun.checkLimits(concurrency: concurrency, perHost: perHost, rate: rate, deadline: deadline)
            guard input != nil || !targets.isEmpty else { throw InputError(.badArgument, "give targets as arguments or with --input FILE (- for standard input)") }
            let runtime = try CommandRuntime.runtime
            let concurrency = AuditLimits.concurrencyAllowed(asked: self.concurrency, budget: runtime.descriptorBudget)
            if concurrency < self.concurrency {
                Diagnostics.warn("--concurrency \(self.concurrency) needs more open files than the limit allows (ulimit -n); using \(concurrency)")
            }
            let context = try connection.context(ruleSet: try diagnostics.ruleSet(),
                                                 forecastHorizonSeconds: try forecast.horizonSeconds(atLeast: failOn.expiringSeconds))
            let share = try shard.map(AuditRun.share) ?? .whole
            let source = try AuditInput(arguments: targets, path: input, option: "--input")
            let runner = try context.runner(naming: connection)
            let run = AuditRun.runInfo(context: context, runner: runner, input: input, connection: connection.settings)
            // Read and checked against this run before any connection: a missing, bad or
            // incomparable baseline is 64 at once.
            let baseline = try AuditBaseline.read(self.baseline, failOn: failOn, run: run, compareAnyway: compareAnyway, warn: Diagnostics.warn)
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
            return try await AuditRun.run(source, context: context, runner: runner,
                                          limits: AuditLimits(concurrency: concurrency, perHost: perHost, rate: rate, deadlineSeconds: deadline, shard: share),
                                          sink: sink, ticking: progress.enabled, interrupts: interrupts, runtime: runtime, failOn: failOn)
        }
    }
}

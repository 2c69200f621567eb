import ATSFiles
import ATSReport
import ArgumentParser
import TextSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ATSProbeCommand {
    /// `atsprobe report FILE... --format html`: a report of results already written, without probing again.
    struct Report: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "report",
            abstract: "Render results already written (audit's JSON Lines, diagnose's JSON) as \(ATSReport.Report.outputs.sentence), without connecting; --diff compares two runs.",
            discussion: """
            The report equals the one the run itself would have written with the same --format: write both at once \
            with `audit --format html --output report.html --records results.jsonl`, or keep the JSON Lines and \
            render them later. Several files, or a directory of .jsonl/.json files, are one run's shards \
            (`audit --shard K/N`): they merge into one report in input order, and a target two shards both hold is refused. \
            See docs/reports.md.
            --diff OLD NEW compares two runs as `audit --baseline` does: each target of NEW new, fixed, changed or \
            unchanged against OLD, and which tests moved; it exits 1 when a target got worse, else 0. The runs must be \
            comparable (the same rule set, --at, anchors and verdict options, OLD not newer): else 64 with the command that \
            records a comparable baseline, unless --compare-anyway. --accept TARGET takes one target's change as the new \
            baseline. --baseline-of RUN writes RUN's compact baseline (what a comparison reads; with --update OLD and \
            --accept, OLD with only those targets moved forward). See docs/reports.md, "Baselines".
            Exit codes: the run's (0 every target passes; 1 a target needs an exception or cannot load; 2 a target \
            is unreachable or timed out); 64 unreadable file, not atsprobe's JSON, or a target in two shards.
            """
        )

        @Argument(help: ArgumentHelp("JSON Lines from `audit --format json` or `--records`, `diagnose --format json` output, or a directory of shards; - reads standard input.", valueName: "file"))
        var files: [String] = []

        @Flag(name: .shortAndLong, help: "Text: add each test's dictionary and error under its line.")
        var verbose = false

        @Flag(name: .shortAndLong, help: "No summary on standard error.")
        var quiet = false

        @Flag(name: .long, help: ArgumentHelp("Compare two runs: the files are OLD then NEW (each a file or a directory of shards); \(ComparisonOutput.outputs.sentence)."))
        var diff = false

        @Option(name: .customLong("fail-on"), help: "Which findings fail: none, unreachable, exception, any (the default, as the run itself), expiring:DURATION (also a target whose forecast loads worse within DURATION); with --diff: new (the default: what got worse), absent (also a baseline target no longer audited), expiring:DURATION, none (always 0).")
        var failOn: AuditFailOnChoice?

        @Flag(name: .customLong("compare-anyway"), help: "With --diff: compare runs recorded under other options (or OLD newer than NEW) all the same; every output says so first.")
        var compareAnyway = false

        @Option(name: .customLong("accept"), help: ArgumentHelp("With --diff: take TARGET's change (its URL or input line) as accepted, not worse; with --baseline-of and --update: move TARGET forward in the baseline. Repeatable.", valueName: "target"))
        var accept: [String] = []

        @Option(name: .customLong("baseline-of"), help: ArgumentHelp("Write RUN's compact baseline (only what a comparison reads, at most 2 KB a target) instead of a report.", valueName: "run"), completion: .file())
        var baselineOf: String?

        @Option(name: .customLong("update"), help: ArgumentHelp("With --baseline-of RUN and --accept: the baseline to move forward (its other targets kept as they are).", valueName: "baseline"), completion: .file())
        var update: String?

        @OptionGroup var sarif: SARIFOptions
        @OptionGroup var metrics: MetricsOptions

        @Option(name: .customLong("junit-cases"), help: ArgumentHelp("JUnit: a testcase per target, failing as its verdict fails (targets, the default), or per nscurl test (tests).", valueName: "targets|tests"))
        var junitCases: JUnitCaseChoice = .targets

        @OptionGroup var output: OutputOptions<ATSReport.Report>
        @OptionGroup var colors: ColorOptions

        func run() async throws {
            try await ATSProbeCommand.guarded {
                if let baselineOf { return try writeBaseline(of: baselineOf) }
                guard !files.isEmpty else { throw InputError(.badArgument, "give at least one file of records (or - for standard input)") }
                if diff { return try compare() }
                guard accept.isEmpty else { throw InputError(.badArgument, "--accept goes with --diff, or with --baseline-of and --update") }
                guard !compareAnyway else { throw InputError(.badArgument, "--compare-anyway goes with --diff") }
                let failOn = self.failOn ?? .level(.any)
                if failOn.needsBaseline {
                    throw InputError(.badArgument, "--fail-on \(failOn.defaultValueDescription) compares two runs: give them with --diff OLD NEW")
                }
                let format = output.effectiveFormat
                let category = try sarif.category(format: format)
                let metricsLabels = try metrics.labels(format: format)
                let records = try ReportInput.read(files).records
                let report = ATSReport.Report(records)
                var sink = OutputSink(path: output.output)
                try sink.write(report, as: format, options: RenderOptions(verbose: verbose, palette: colors.palette(format: format, path: output.output),
                                                                          junitCases: junitCases.cases, sarifCategory: category, metricsLabels: metricsLabels))
                try sink.finish()
                if !quiet { FileStream.standardError.write(report.tally.summary(command: "report")) }
                let status = try ReportGate.status(report, failOn: failOn)
                // The one-line error of a 64 is said with --quiet too: quiet drops the summary only.
                if status == .usage { Diagnostics.warn(ReportGate.badLines(report.tally.count(.error), written: output.output)) }
                return status
            }
        }
    }
}

extension ATSProbeCommand.Report {
    /// --diff OLD NEW: the comparison `audit --baseline` makes (RunRecords.sides, BaselineComparison),
    /// in any of its formats; refused (64) when the runs are not comparable, unless
    /// --compare-anyway; 1 when a target got worse (with --fail-on absent, also when a
    /// baseline target is no longer audited; with expiring:D, also when NEW's forecast worsens
    /// within D), 64 when NEW holds a bad input line (as the run itself), else 0.
    func compare() throws -> ExitStatus {
        guard files.count == 2 else { throw InputError(.badArgument, "--diff takes two runs, OLD then NEW, got \(files.count) file\(files.count == 1 ? "" : "s")") }
        let failOn = self.failOn ?? .new
        if case .level(let level) = failOn, level != .none {
            throw InputError(.badArgument, "--diff --fail-on takes new (the default), absent, expiring:DURATION or none, got \(level.rawValue)")
        }
        let format = output.effectiveFormat
        let category = try sarif.category(format: format)
        guard ComparisonOutput.formats.contains(format) else { throw InputError(.badArgument, "--diff writes \(ComparisonOutput.outputs.sentence) only") }
        let (comparison, new, run) = try ReportGate.diff(old: files[0], new: files[1], accepted: accept, anyway: compareAnyway)
        if let line = comparison.notComparableLine { Diagnostics.warn(line) }
        // Before writing: NEW without the forecast --fail-on expiring: reads is refused with no output.
        let status = try ReportGate.diffStatus(comparison, new: new, failOn: failOn)
        var sink = OutputSink(path: output.output)
        try sink.write(ComparisonOutput(comparison, baselinePath: files[0], input: run?.input, toolVersion: run?.toolVersion), as: format,
                       options: RenderOptions(sarifCategory: category))
        try sink.finish()
        if status == .usage { Diagnostics.warn(ReportGate.badLines(ReportGate.badLineCount(new), written: output.output)) }
        return status
    }

    /// --baseline-of RUN: RUN's compact baseline (CompactBaseline); with --update OLD and
    /// --accept, OLD with only the accepted targets taken from RUN (refused when the two are
    /// not comparable, unless --compare-anyway).
    func writeBaseline(of path: String) throws -> ExitStatus {
        guard files.isEmpty, !diff else { throw InputError(.badArgument, "--baseline-of RUN takes no other file and no --diff") }
        let baseline = try ReportGate.baseline(of: path, update: update, accept: accept, anyway: compareAnyway)
        var sink = OutputSink(path: output.output)
        sink.write(baseline)
        try sink.finish()
        return .clear
    }
}

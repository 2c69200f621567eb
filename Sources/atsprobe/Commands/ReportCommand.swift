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
                guard !files.isEmpty else { throw InputError("give at least one file of records (or - for standard input)") }
                if diff { return try compare() }
                guard accept.isEmpty else { throw InputError("--accept goes with --diff, or with --baseline-of and --update") }
                guard !compareAnyway else { throw InputError("--compare-anyway goes with --diff") }
                let failOn = self.failOn ?? .level(.any)
                if failOn.needsBaseline {
                    throw InputError("--fail-on \(failOn.defaultValueDescription) compares two runs: give them with --diff OLD NEW")
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
                var status: ExitStatus
                switch failOn {
                case .level(let level): status = ExitStatus(report.tally.severity(failOn: level))
                case .expiring(let seconds):
                    status = ExitStatus(report.tally.severity(failOn: .any))
                    let sides = report.records.map(BaselineComparison.Side.init)
                    if try ReportCommandHints.expiring(sides, within: seconds) { status = max(status, .findings) }
                case .new, .absent: status = .clear  // refused above
                }
                // The one-line error of a 64 is said with --quiet too: quiet drops the summary only.
                if status == .usage { Diagnostics.warn(ReportCommandHints.badLines(report.tally.count(.error), written: output.output)) }
                return status
            }
        }
    }
}

/// What `report` says when the run it renders had bad input lines, and what `--fail-on expiring:` reads.
enum ReportCommandHints {
    /// One line: the report is whole, the 64 is the run's, and how to clear it. Never a way
    /// around the gate (issue 42: `--fail-on none` in a gate step turns the gate off).
    static func badLines(_ count: Int, written path: String?) -> String {
        let whole = path.map { "'\(UntrustedText.escape($0, limit: 300))' is written in full" } ?? "the report above is complete"
        return "exit 64: the run had \(count) bad input line\(count == 1 ? "" : "s") (records of kind \"error\", each naming its line); \(whole). "
            + "Fix or remove those lines of the input to clear it"
    }

    /// `--fail-on expiring:DURATION` on records (`BaselineComparison.Side.worsens`).
    static func expiring(_ sides: [BaselineComparison.Side], within seconds: Int) throws -> Bool {
        try BaselineComparison.Side.worsens(sides, within: seconds)
    }
}

extension ATSProbeCommand.Report {
    /// --diff OLD NEW: the comparison `audit --baseline` makes (RunRecords.sides, BaselineComparison),
    /// in any of its formats; refused (64) when the runs are not comparable, unless
    /// --compare-anyway; 1 when a target got worse (with --fail-on absent, also when a
    /// baseline target is no longer audited; with expiring:D, also when NEW's forecast worsens
    /// within D), 64 when NEW holds a bad input line (as the run itself), else 0.
    func compare() throws -> ExitStatus {
        guard files.count == 2 else { throw InputError("--diff takes two runs, OLD then NEW, got \(files.count) file\(files.count == 1 ? "" : "s")") }
        let failOn = self.failOn ?? .new
        if case .level(let level) = failOn, level != .none {
            throw InputError("--diff --fail-on takes new (the default), absent, expiring:DURATION or none, got \(level.rawValue)")
        }
        let format = output.effectiveFormat
        let category = try sarif.category(format: format)
        guard ComparisonOutput.formats.contains(format) else { throw InputError("--diff writes \(ComparisonOutput.outputs.sentence) only") }
        // Only what the comparison reads of each record is kept (RunRecords.sides): memory grows
        // with the targets, not with the records' size. NEW first: a missing OLD is answered
        // with the command that records it under NEW's options.
        let new = try RunRecords.sides([files[1]], allowEmpty: true)
        let old = try BaselineReading.read(files[0], option: "--diff", run: new.run)
        let differences = try BaselineReading.check(baseline: old.run, path: files[0], run: new.run, anyway: compareAnyway)
        var comparison = BaselineComparison(old: old.sides, new: new.sides, accepted: accept)
        comparison.notComparable = differences
        if let line = comparison.notComparableLine { Diagnostics.warn(line) }
        let expiringFails = try failOn.expiringSeconds.map { try ReportCommandHints.expiring(new.sides, within: $0) } ?? false
        var sink = OutputSink(path: output.output)
        try sink.write(ComparisonOutput(comparison, baselinePath: files[0], input: new.run?.input, toolVersion: new.run?.toolVersion), as: format,
                       options: RenderOptions(sarifCategory: category))
        try sink.finish()
        if failOn == .level(.none) { return .clear }
        var tally = AuditTally()
        for side in new.sides { tally.add(side.verdict, keys: []) }
        if tally.count(.error) > 0 {
            Diagnostics.warn(ReportCommandHints.badLines(tally.count(.error), written: output.output))
            return .usage
        }
        if !comparison.worse.isEmpty || expiringFails { return .findings }
        return failOn == .absent && !comparison.absent.isEmpty ? .findings : .clear
    }

    /// --baseline-of RUN: RUN's compact baseline (CompactBaseline); with --update OLD and
    /// --accept, OLD with only the accepted targets taken from RUN (refused when the two are
    /// not comparable, unless --compare-anyway).
    func writeBaseline(of path: String) throws -> ExitStatus {
        guard files.isEmpty, !diff else { throw InputError("--baseline-of RUN takes no other file and no --diff") }
        let run = try RunRecords.sides([path])
        var sides = run.sides, info = run.run
        if let update {
            guard !accept.isEmpty else { throw InputError("--update moves targets of the baseline forward: name each with --accept TARGET") }
            let old = try BaselineReading.read(update, option: "--update", run: run.run)
            _ = try BaselineReading.check(baseline: old.run, path: update, run: run.run, anyway: compareAnyway)
            sides = try CompactBaseline.accepting(accept, baseline: old.sides, run: run.sides)
            info = old.run ?? run.run
        } else if !accept.isEmpty {
            throw InputError("--accept with --baseline-of needs the baseline to move forward: --update BASELINE")
        }
        var sink = OutputSink(path: output.output)
        sink.write(CompactBaseline.render(sides, run: info))
        try sink.finish()
        return .clear
    }
}

import ATSFiles
import ATSEngine
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
            abstract: "Render results already written (audit's JSON Lines, diagnose's JSON) as text, HTML, CSV, Markdown, JUnit, SARIF or metrics (OpenMetrics, Prometheus), without connecting; --diff compares two runs.",
            discussion: """
            The report equals the one the run itself would have written with the same --format: write both at once \
            with `audit --format html --output report.html --records results.jsonl`, or keep the JSON Lines and \
            render them later. Several files, or a directory of .jsonl/.json files, are one run's shards \
            (`audit --shard K/N`): they merge into one report in input order, and a target two shards both hold is refused. \
            See docs/reports.md.
            --diff OLD NEW compares two runs as `audit --baseline` does: each target of NEW new, fixed, changed or \
            unchanged against OLD, and which tests moved; it exits 1 when a target got worse, else 0.
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

        @Flag(name: .long, help: "Compare two runs: the files are OLD then NEW (each a file or a directory of shards); text, json, markdown, junit or sarif.")
        var diff = false

        @Option(name: .customLong("fail-on"), help: "Which findings fail: none, unreachable, exception, any (the default, as the run itself); with --diff, none exits 0 whatever got worse.")
        var failOn: AuditFailOnChoice = .level(.any)

        @Option(name: .customLong("junit-cases"), help: ArgumentHelp("JUnit: a testcase per target, failing as its verdict fails (targets, the default), or per nscurl test (tests).", valueName: "targets|tests"))
        var junitCases: JUnitCaseChoice = .targets

        @OptionGroup var output: OutputOptions<ReportFormats>
        @OptionGroup var metrics: MetricsOptions
        @OptionGroup var colors: ColorOptions

        func run() async throws {
            try await ATSProbeCommand.guarded {
                guard !files.isEmpty else { throw InputError("give at least one file of records (or - for standard input)") }
                guard case .level(let failOn) = failOn else {
                    throw InputError("--fail-on new is for audit --baseline; report --diff always fails on what got worse")
                }
                if diff { return try compare(failOn: failOn) }
                let format = output.effectiveFormat
                let metricsLabels = try metrics.labels(format: format)
                let records = try ReportInput.read(files).records
                let report = ATSReport.Report(records)
                var sink = OutputSink(path: output.output)
                switch format {
                case .text:
                    // In input order (a single run's file is in finishing order), then the matrix.
                    sink.write(ReportText.render(report, verbose: verbose, palette: colors.palette(format: format, path: output.output)))
                case .json:
                    // The records again as JSON Lines, in input order: shards merged into one file.
                    let encoder = JSONEncoder.atsprobe()
                    for record in report.records { sink.write(String(decoding: try encoder.encode(record), as: UTF8.self) + "\n") }
                default:
                    sink.write(report.render(format.reportFormat, verbose: verbose, junitCases: junitCases.cases, metricsLabels: metricsLabels))
                }
                try sink.finish()
                if !quiet { FileStream.standardError.write(report.tally.summary(command: "report")) }
                let status = ExitStatus(report.tally.severity(failOn: failOn))
                if status == .usage, !quiet { Diagnostics.warn(ReportCommandHints.badLines(report.tally.count(.error), written: output.output)) }
                return status
            }
        }
    }
}

/// What `report` says when the run it renders had bad input lines.
enum ReportCommandHints {
    /// One line: the report is whole, the 64 is the run's, and how a CI step goes on.
    static func badLines(_ count: Int, written path: String?) -> String {
        let whole = path.map { "'\(UntrustedText.escape($0, limit: 300))' is written in full" } ?? "the report above is complete"
        return "exit 64: the run had \(count) bad input line\(count == 1 ? "" : "s") (records of kind \"error\"); \(whole). "
            + "To go on in a `set -e` step (a pull-request comment), add --fail-on none (always 0) or --fail-on exception; fix the input lines to clear it"
    }
}

extension ATSProbeCommand.Report {
    /// --diff OLD NEW: the comparison `audit --baseline` makes, in any of its formats; 1 when a
    /// target got worse, 64 when NEW holds a bad input line (as the run itself), else 0.
    func compare(failOn: AuditFailOn) throws -> ExitStatus {
        guard files.count == 2 else { throw InputError("--diff takes two runs, OLD then NEW, got \(files.count) file\(files.count == 1 ? "" : "s")") }
        // Only what the comparison reads of each record is kept (RunRecords.sides): memory grows
        // with the targets, not with the records' size.
        let old = try RunRecords.sides([files[0]]), new = try RunRecords.sides([files[1]])
        let comparison = BaselineComparison(old: old.sides, new: new.sides)
        var sink = OutputSink(path: output.output)
        let input = new.run?.input
        let version = new.run?.toolVersion
        switch output.effectiveFormat {
        case .text: sink.write(comparison.text(baseline: files[0]))
        case .json: sink.write(comparison.json(baseline: files[0]))
        case .markdown: sink.write(comparison.markdown(baseline: files[0]))
        case .junit: sink.write(comparison.junit())
        case .sarif:
            // Plain Codable values: encoding cannot fail.
            let log = comparison.sarif(input: input, toolVersion: version)
            sink.write(((try? JSONEncoder.atsprobe().encode(log)).map { String(decoding: $0, as: UTF8.self) } ?? "") + "\n")
        default:
            throw InputError("--diff writes text, json, markdown, junit or sarif only")
        }
        try sink.finish()
        if failOn == .none { return .clear }
        var tally = AuditTally()
        for side in new.sides { tally.add(side.verdict, keys: []) }
        if tally.count(.error) > 0 {
            if !quiet { Diagnostics.warn(ReportCommandHints.badLines(tally.count(.error), written: output.output)) }
            return .usage
        }
        return comparison.worse.isEmpty ? .clear : .findings
    }
}

extension OutputFormat {
    /// The report format of `--format` (audit, diagnose, report); text for any other.
    var reportFormat: ReportFormat { ReportFormat(rawValue: rawValue) ?? .text }
}

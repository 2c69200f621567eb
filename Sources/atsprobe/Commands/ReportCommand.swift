import ATSFiles
import ATSEngine
import ATSReport
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ATSProbeCommand {
    /// `atsprobe report FILE... --format html`: a report of results already written, without probing again.
    struct Report: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Render results already written (audit's JSON Lines, diagnose's JSON) as text, HTML, CSV, Markdown, JUnit or SARIF, without connecting; --diff compares two runs.",
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

        @Flag(name: .long, help: "Compare two runs: the files are OLD then NEW (each a file or a directory of shards); text only.")
        var diff = false

        @OptionGroup var output: OutputOptions<ReportFormats>
        @OptionGroup var colors: ColorOptions

        func run() async throws {
            try await ATSProbeCommand.guarded {
                guard !files.isEmpty else { throw InputError("give at least one file of records (or - for standard input)") }
                if diff { return try compare() }
                let records = try ReportInput.read(files).records
                let format = output.effectiveFormat
                let report = ATSReport.Report(records)
                var sink = OutputSink(path: output.output)
                if format == .text {
                    // In input order (a single run's file is in finishing order), then the matrix.
                    sink.write(ReportText.render(report, verbose: verbose, palette: colors.palette(format: format, path: output.output)))
                } else {
                    sink.write(report.render(format.reportFormat, verbose: verbose))
                }
                try sink.finish()
                if !quiet { FileStream.standardError.write(report.tally.summary(command: "report")) }
                return ExitStatus(report.tally.severity(failOn: .any))
            }
        }
    }
}

extension ATSProbeCommand.Report {
    /// --diff OLD NEW: the comparison `audit --baseline` prints; 1 when a target got worse.
    func compare() throws -> ExitStatus {
        guard files.count == 2 else { throw InputError("--diff takes two runs, OLD then NEW, got \(files.count) file\(files.count == 1 ? "" : "s")") }
        guard output.effectiveFormat == .text else { throw InputError("--diff writes text only") }
        let comparison = BaselineComparison(old: try ReportInput.read([files[0]]).records, new: try ReportInput.read([files[1]]).records)
        var sink = OutputSink(path: output.output)
        sink.write(comparison.text(baseline: files[0]))
        try sink.finish()
        return comparison.worse.isEmpty ? .clear : .findings
    }
}

extension OutputFormat {
    /// The report format of `--format` (audit, diagnose, report); text for any other.
    var reportFormat: ReportFormat { ReportFormat(rawValue: rawValue) ?? .text }
}

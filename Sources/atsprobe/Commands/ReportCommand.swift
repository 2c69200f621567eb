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
            abstract: "Render results already written (audit's JSON Lines, diagnose's JSON) as text, HTML, CSV or Markdown, without connecting.",
            discussion: """
            The report equals the one the run itself would have written with the same --format: write both at once \
            with `audit --format html --output report.html --records results.jsonl`, or keep the JSON Lines and \
            render them later. Several files, or a directory of .jsonl/.json files, are one run's shards \
            (`audit --shard K/N`): they merge into one report in input order, and a target two shards both hold is refused. \
            See docs/reports.md.
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

        @OptionGroup var output: OutputOptions<ReportFormats>
        @OptionGroup var colors: ColorOptions

        func run() async throws {
            try await ATSProbeCommand.guarded {
                guard !files.isEmpty else { throw InputError("give at least one file of records (or - for standard input)") }
                let (records, merged) = try ReportInput.read(files)
                let format = output.effectiveFormat
                let report = ATSReport.Report(records)
                var sink = OutputSink(path: output.output)
                if format == .text {
                    // One file: in the file's order, as the run wrote its lines. Shards: in input order.
                    let palette = colors.palette(format: format, path: output.output)
                    for record in merged ? report.records : records {
                        sink.write(ReportText.entry(record, verbose: verbose, palette: palette))
                    }
                } else {
                    sink.write(report.render(format.reportFormat, verbose: verbose))
                }
                try sink.finish()
                if !quiet { FileStream.standardError.write(report.tally.summary) }
                return ExitStatus(report.tally.severity(failOn: .any))
            }
        }
    }
}

extension OutputFormat {
    /// The report format of `--format` (audit, diagnose, report); text for any other.
    var reportFormat: ReportFormat {
        switch self {
        case .html: .html
        case .csv: .csv
        case .markdown: .markdown
        default: .text
        }
    }
}

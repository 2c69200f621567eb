import ATSEngine
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ATSProbeCommand {
    /// `atsprobe report FILE --format html`: a report of results already written, without probing again.
    struct Report: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Render results already written (audit's JSON Lines, diagnose's JSON) as text, HTML, CSV or Markdown, without connecting.",
            discussion: """
            The report equals the one the run itself would have written with the same --format: write both at once \
            with `audit --format html --output report.html --records results.jsonl`, or keep the JSON Lines and \
            render them later. See docs/reports.md.
            Exit codes: the run's (0 every target passes; 1 a target needs an exception or cannot load; 2 a target \
            is unreachable or timed out); 64 unreadable file or not atsprobe's JSON.
            """
        )

        @Argument(help: ArgumentHelp("JSON Lines from `audit --format json` or `--records`, or `diagnose --format json` output; - reads standard input.", valueName: "file"))
        var file: String

        @Flag(name: .shortAndLong, help: "Text: add each test's dictionary and error under its line.")
        var verbose = false

        @Flag(name: .shortAndLong, help: "No summary on standard error.")
        var quiet = false

        @OptionGroup var output: OutputOptions<ReportFormats>
        @OptionGroup var colors: ColorOptions

        func run() async throws {
            try await ATSProbeCommand.guarded {
                let records = try ReportInput.read(file)
                let format = output.effectiveFormat
                let report = atsprobe.Report(records)
                var sink = OutputSink(path: output.output)
                if format == .text {
                    // In the file's order, as the run wrote its lines.
                    let palette = colors.palette(format: format, path: output.output)
                    for record in records { sink.write(ReportText.entry(record, verbose: verbose, palette: palette)) }
                } else {
                    sink.write(report.render(format, verbose: verbose))
                }
                try sink.finish()
                if !quiet { FileStream.standardError.write(report.tally.summary) }
                return ExitStatus(report.tally.severity(failOn: .any))
            }
        }
    }
}

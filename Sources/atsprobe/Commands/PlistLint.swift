import ATSFiles
import CommandRuns
import ATSCommandOutputs
import ATSReport
import ArgumentParser
import ATSAdvice
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension LintFailOn: ExpressibleByArgument {}

extension ATSProbeCommand {
    /// `atsprobe plist lint FILE`: static checks of the ATS dictionary (docs/lint.md), no network.
    struct PlistLint: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "lint",
            abstract: "Report what ATS would ignore, misread or question in an Info.plist, without connecting.",
            discussion: "Exit codes: 0 no finding at or above --fail-on; 1 findings; 64 unreadable file or not a property list."
        )

        @Argument(help: "Info.plist (XML or binary), or a bare NSAppTransportSecurity dictionary.", completion: .file())
        var file: String

        // Errors fail by default, warnings do not (as SwiftLint and ESLint): an exception the app
        // needs is a warning App Store review asks about, not a broken key. --fail-on warning is strict.
        @Option(name: .customLong("fail-on"), help: "Exit 1 on findings at or above: error, warning, info or never. Default: error.")
        var failOn: LintFailOn = .error

        @Flag(name: .shortAndLong, help: "Text: the findings only, without the closing count (nothing when there are none), as every command's -q keeps the summary back.")
        var quiet = false

        @OptionGroup var output: OutputOptions<PlistLintOutput>
        @OptionGroup var sarif: SARIFOptions

        func run() async throws {
            try await ATSProbeCommand.guarded {
                // Checked first, as diagnose and report do: a category without SARIF is bad input (64).
                let category = try sarif.category(format: output.effectiveFormat)
                let (document, bytes) = try PlistInput.read(file)
                let findings = ATSLinter.lint(document)
                var sink = OutputSink(path: output.output)
                let result = PlistLintOutput(file: file, document: document, bytes: bytes, findings: findings, count: !quiet,
                                             run: RunInfo(ruleSet: nil, trustStore: nil, ctLogList: nil))
                try sink.write(result, as: output.effectiveFormat, options: RenderOptions(sarifCategory: category))
                try sink.finish()
                return failOn.fails(findings) ? .findings : .clear
            }
        }
    }
}

import ATSFiles
import CommandRuns
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

        @OptionGroup var output: OutputOptions<LintFormats>
        @OptionGroup var sarif: SARIFOptions

        func run() async throws {
            try await ATSProbeCommand.guarded {
                let (document, bytes) = try PlistInput.read(file)
                let findings = ATSLinter.lint(document)
                var sink = OutputSink(path: output.output)
                switch output.effectiveFormat {
                case .text:
                    sink.write(PlistLintText.render(findings, count: !quiet))
                case .json:
                    let report = PlistLintJSON(file: file, format: document.format.rawValue, findings: findings)
                    sink.write(String(decoding: try JSONEncoder.atsprobe().encode(report), as: UTF8.self) + "\n")
                case .xcode:
                    let locations = PlistLocations(path: file, document: document, bytes: bytes)
                    sink.write(PlistDiagnostics.xcode(PlistDiagnostics.lint(findings), locations: locations))
                case .sarif:
                    let locations = PlistLocations(path: file, document: document, bytes: bytes)
                    let log = PlistDiagnostics.sarif(PlistDiagnostics.lint(findings), rules: PlistDiagnostics.lintRules, locations: locations, toolVersion: ToolVersion.current)
                    let (finished, warning) = log.finished(category: try sarif.category(format: .sarif))
                    sink.write(finished.json)
                    if let warning { Diagnostics.warn(warning) }
                default:
                    // OutputOptions<LintFormats> parses no other format.
                    throw InputError("plist lint writes text, json, xcode or sarif only")
                }
                try sink.finish()
                return failOn.fails(findings) ? .findings : .clear
            }
        }
    }
}

/// `plist lint --format json`.
struct PlistLintJSON: Encodable {
    let schemaVersion = jsonSchemaVersion
    let file: String
    let format: String
    let findings: [LintFinding]
    /// The tool and when it ran; no rule set, trust store or CT list is used.
    var run = RunInfo(ruleSet: nil, trustStore: nil, ctLogList: nil)
}

import ATSFiles
import CommandRuns
import ATSReport
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ATSProbeCommand {
    /// `atsprobe plist check FILE TARGET...`: the app's dictionary against the hosts it loads.
    struct PlistCheck: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Load each target under the app's own ATS dictionary, and say which exceptions it does not need.",
            discussion: """
            For each target: the part of the dictionary that applies (both NSIncludesSubdomains readings where they \
            disagree), the load under the app's dictionary, and nscurl's diagnostics for the host. Then the keys wider \
            than the hosts need, and the tightened NSAppTransportSecurity dictionary (--format plist prints only it).
            Exit codes: 0 every load passes and nothing to tighten; 1 a load fails or a key is wider than needed; \
            2 a host cannot be reached; 64 bad input.
            """
        )

        @Argument(help: "Info.plist (XML or binary), or a bare NSAppTransportSecurity dictionary.", completion: .file())
        var file: String

        @Argument(help: "URL, HOST, HOST:PORT or [IPv6]:PORT the app loads; several allowed.")
        var targets: [String] = []

        @Option(name: .long, help: "File of targets, one per line; lines starting with # are comments.", completion: .file())
        var input: String?

        @OptionGroup var diagnostics: DiagnosticsArguments
        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions<PlistCheckFormats>
        @OptionGroup var sarif: SARIFOptions
        @OptionGroup var colors: ColorOptions

        func run() async throws {
            try await ATSProbeCommand.guarded {
                let (document, bytes) = try PlistInput.read(file)
                var texts = targets
                if let input { texts += try TargetList.read(input, option: "--input") }
                guard !texts.isEmpty else { throw InputError("give at least one target (URL, HOST or HOST:PORT) or --input FILE") }
                let context = try connection.context(ruleSet: try diagnostics.ruleSet())
                let parsed = try texts.map { try context.target($0) }
                let ruleSet = context.ruleSet
                let outcome = try await PlistCheckRun.run(document, targets: parsed, runner: try context.runner(naming: connection), ruleSet: ruleSet)
                let (checks, tightening, tightenedPlist) = (outcome.checks, outcome.tightening, outcome.tightenedPlist)

                var sink = OutputSink(path: output.output)
                switch output.effectiveFormat {
                case .text:
                    sink.write(PlistCheckText.render(file: file, document: document, ruleSet: ruleSet, checks: checks,
                                                     tightening: tightening, tightenedPlist: tightenedPlist,
                                                     verbose: diagnostics.verbose,
                                                     palette: colors.palette(format: .text, path: output.output)))
                case .json:
                    var report = PlistCheckJSON(file: file, document: document, ruleSet: ruleSet, checks: checks,
                                                tightening: tightening, tightenedPlist: tightenedPlist)
                    report.run = RunInfo(context: context, ruleSet: ruleSet.id)
                    sink.write(String(decoding: try JSONEncoder.atsprobe().encode(report), as: UTF8.self) + "\n")
                case .plist:
                    sink.write(tightenedPlist)
                case .xcode:
                    let locations = PlistLocations(path: file, document: document, bytes: bytes)
                    sink.write(PlistDiagnostics.xcode(PlistDiagnostics.check(checks, tightening), locations: locations))
                case .sarif:
                    let locations = PlistLocations(path: file, document: document, bytes: bytes)
                    let diagnostics = PlistDiagnostics.check(checks, tightening)
                    let log = PlistDiagnostics.sarif(diagnostics, rules: PlistDiagnostics.checkRules(for: diagnostics), locations: locations, toolVersion: ToolVersion.current)
                    let (finished, warning) = log.finished(category: try sarif.category(format: .sarif))
                    sink.write(finished.json)
                    if let warning { Diagnostics.warn(warning) }
                default:
                    throw InputError("plist check writes text, json, plist, xcode or sarif only")
                }
                try sink.finish()
                return outcome.status
            }
        }
    }
}

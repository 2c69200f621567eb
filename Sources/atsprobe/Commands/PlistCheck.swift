import ATSFiles
import CommandRuns
import ATSCommandOutputs
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
        @OptionGroup var output: OutputOptions<PlistCheckOutput>
        @OptionGroup var sarif: SARIFOptions
        @OptionGroup var colors: ColorOptions

        func run() async throws {
            try await ATSProbeCommand.guarded {
                // Checked before any load, as diagnose and report do: a category without SARIF is bad input (64).
                let category = try sarif.category(format: output.effectiveFormat)
                let (document, bytes) = try PlistInput.read(file)
                var texts = targets
                if let input { texts += try TargetList.read(input, option: "--input") }
                guard !texts.isEmpty else { throw InputError(.badArgument, "give at least one target (URL, HOST or HOST:PORT) or --input FILE") }
                let context = try connection.context(ruleSet: try diagnostics.ruleSet())
                let parsed = try texts.map { try context.target($0) }
                let ruleSet = context.ruleSet
                let outcome = try await PlistCheckRun.run(document, targets: parsed, runner: try context.runner(naming: connection), ruleSet: ruleSet)

                var sink = OutputSink(path: output.output)
                let report = outcome.document(file: file, document: document, ruleSet: ruleSet, run: RunInfo(context: context, ruleSet: ruleSet.id))
                let result = PlistCheckOutput(report: report, document: document, bytes: bytes, toolVersion: ToolVersion.current)
                let format = output.effectiveFormat
                try sink.write(result, as: format, options: RenderOptions(verbose: diagnostics.verbose, palette: colors.palette(format: format, path: output.output),
                                                                          sarifCategory: category))
                try sink.finish()
                return outcome.status
            }
        }
    }
}

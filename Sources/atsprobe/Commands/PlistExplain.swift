import ATSFiles
import CommandRuns
import ATSCommandOutputs
import ATSReport
import ArgumentParser
import ATSPolicy
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ATSProbeCommand {
    /// `atsprobe plist explain FILE URL...`: what ATS requires of each URL under the app's
    /// dictionary, offline (issue 22, item 3). The judgement is `PolicyExplanation`, over the
    /// same `EffectivePolicy` the loads use.
    struct PlistExplain: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "explain",
            abstract: "Say what ATS requires of each URL under the app's dictionary, without connecting.",
            discussion: """
            For each URL: the entry that governs it (both NSIncludesSubdomains readings where they differ), whether \
            TLS is required and why (an exception, Apple's built-in exceptions, local networking, arbitrary loads), \
            the minimum TLS version, whether the forward-secret suites are required, Certificate Transparency, and the \
            pins that apply (and whether any certificate can match them). Loopback and link-local addresses, \
            unqualified and .local names are direct (on-link); --direct declares another address direct.
            Exit codes: 0 explained; 64 bad input.
            """
        )

        @Argument(help: "Info.plist (XML or binary), or a bare NSAppTransportSecurity dictionary.", completion: .file())
        var file: String

        @Argument(help: "URL, HOST, HOST:PORT or [IPv6]:PORT the app loads; several allowed.")
        var urls: [String] = []

        @Option(name: .long, help: ArgumentHelp("An IP address the device reaches on-link (Apple's is_direct); repeatable.", valueName: "addr"))
        var direct: [String] = []

        @Option(name: .long, help: RulesOption.help("ATS rule set to judge by"), completion: RulesOption.completions())
        var rules: String = RuleSet.current.id

        @OptionGroup var output: OutputOptions<PlistExplainOutput>

        func run() async throws {
            try await ATSProbeCommand.guarded {
                let document = try PlistInput.document(file)
                guard !urls.isEmpty else { throw InputError(.badArgument, "give at least one URL (or HOST, HOST:PORT) to explain") }
                let (ruleSet, explanations) = try PlistExplainRun.explain(document, urls: urls, direct: direct, ruleSet: { try RulesOption.resolve(rules) })
                var sink = OutputSink(path: output.output)
                try sink.write(PlistExplainOutput(file: file, ruleSet: ruleSet, explanations: explanations), as: output.effectiveFormat)
                try sink.finish()
                return .clear
            }
        }
    }
}

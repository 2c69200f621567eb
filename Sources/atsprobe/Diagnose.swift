import ArgumentParser
import ATSDiagnostics
import ATSPolicy
import ATSProbe
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

/// Options of the diagnostics commands.
struct DiagnosticsArguments: ParsableArguments {
    @Option(name: .long, help: "ATS rule set to judge by: \(RuleSet.all.map(\.id).joined(separator: ", ")). Default: documented.")
    var rules: String = RuleSet.documented.id

    @Flag(name: .long, help: "Show each test's ATS dictionary and, on failure, the error.")
    var verbose = false

    func ruleSet() throws -> RuleSet {
        guard let set = RuleSet.named(rules) else {
            throw InputError("unknown rule set '\(UntrustedText.escape(rules, limit: 60))' (choose from \(RuleSet.all.map(\.id).joined(separator: ", ")))")
        }
        return set
    }
}

extension ATSProbeCommand {
    /// `atsprobe diagnose TARGET...`: nscurl's diagnostics for several targets, one after another.
    struct Diagnose: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run nscurl's 16 ATS tests against each target and say what exception it needs.",
            discussion: "Exit codes: 0 the default ATS connection passes for every target; 1 a target needs an exception or cannot load; 2 a target cannot be reached; 64 bad input."
        )

        @Argument(help: "URL, HOST, HOST:PORT or [IPv6]:PORT; several allowed.")
        var targets: [String] = []

        @OptionGroup var diagnostics: DiagnosticsArguments
        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var exceptions: MergeOptions

        func run() async throws {
            try await ATSProbeCommand.guarded {
                try await runDiagnostics(targets: targets + exceptions.inputTargets(), diagnostics: diagnostics,
                                         connection: connection, output: output, exceptions: exceptions)
            }
        }
    }
}

/// Shared by `--ats-diagnostics` and `diagnose`.
func runDiagnostics(targets texts: [String], diagnostics: DiagnosticsArguments, connection: ConnectionOptions,
                    output: OutputOptions, exceptions: MergeOptions) async throws -> ExitStatus {
    guard !texts.isEmpty else { throw InputError("give at least one target (URL, HOST or HOST:PORT)") }
    let targets = try texts.map { try connection.target($0) }
    // --merge: read the app's plist before any connection; it decides the output.
    let mergeDocument = try exceptions.mergeDocument()
    let ruleSet = try diagnostics.ruleSet()
    let logs = try connection.ctLogs()
    let prober = try makeProber(connection, logs: logs)
    let runner = DiagnosticsRunner(prober: prober, options: try connection.diagnosticsOptions(ruleSet: ruleSet, logs: logs))
    var sink = OutputSink(path: output.output)
    var status = ExitStatus.clear
    var reports: [DiagnosticsReport] = []
    for target in targets {
        let report = await runner.run(target)
        if let failure = report.localFailure {
            throw LocalFailure("\(target.url): \(ProbeText.describe(failure))")
        }
        reports.append(report)
        status = max(status, DiagnosticsText.exitStatus(for: report))
        if output.effectiveFormat == .text && mergeDocument == nil {
            if reports.count > 1 { sink.writeLine() }
            sink.write(DiagnosticsText.render(report, verbose: diagnostics.verbose, palette: Palette(enabled: output.usesColor)))
        }
    }
    if mergeDocument != nil || output.effectiveFormat == .plist {
        try ExceptionPlist.write(reports, options: exceptions, document: mergeDocument, output: output)
        return status
    }
    switch output.effectiveFormat {
    case .text: break
    case .json:
        let documents = reports.map { DiagnosticsJSON($0, verbose: diagnostics.verbose) }
        let encoder = JSONEncoder.atsprobe()
        let data = documents.count == 1 ? try encoder.encode(documents[0]) : try encoder.encode(documents)
        sink.write(String(decoding: data, as: UTF8.self) + "\n")
    case .plist: break
    }
    try sink.finish()
    return status
}

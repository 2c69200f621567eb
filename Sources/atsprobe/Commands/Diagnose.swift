import ATSFiles
import CommandRuns
import ATSCommandOutputs
import ATSReport
import ArgumentParser
import ATSEngine
import ATSPolicy
import ATSProbe
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport
import TLSFacts
#if canImport(Glibc)
import Glibc
#endif

/// Options of the diagnostics commands.
struct DiagnosticsArguments: ParsableArguments {
    // A String, not an enum, so an unknown name gets the command's own one-line error (exit 64);
    // `completion:` still offers every rule set to the shells.
    @Option(name: .long, help: RulesOption.help("ATS rule set to judge by", all: true), completion: RulesOption.completions(all: true))
    var rules: String = RuleSet.current.id

    /// `--rules all` (diagnose and --ats-diagnostics only): every rule set on the same handshakes.
    var allRuleSets: Bool { rules.lowercased() == "all" }

    @Flag(name: .shortAndLong, help: "Show each test's ATS dictionary and, on failure, the error.")
    var verbose = false

    @Flag(name: .shortAndLong, help: "No progress, live output or closing summary on standard error; errors still.")
    var quiet = false

    @Option(name: .customLong("junit-cases"), help: ArgumentHelp("JUnit: a testcase per target, failing as its verdict fails (targets, the default), or per nscurl test (tests).", valueName: "targets|tests"))
    var junitCases: JUnitCaseChoice = .targets

    func ruleSet() throws -> RuleSet { try RulesOption.resolve(rules) }
}

extension ATSProbeCommand {
    /// `atsprobe diagnose TARGET...`: nscurl's diagnostics for several targets, run by the engine's
    /// scheduler and printed in the order given.
    struct Diagnose: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "diagnose",
            abstract: "Run nscurl's \(NSCurlMatrix.count) ATS tests against each target and say what exception it needs.",
            discussion: "Exit codes: 0 the default ATS connection passes for every target; 1 a target needs an exception or cannot load; 2 a target cannot be reached; 64 bad input."
        )

        @Argument(help: "URL, HOST, HOST:PORT or [IPv6]:PORT; several allowed.")
        var targets: [String] = []

        @OptionGroup var diagnostics: DiagnosticsArguments
        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions<DiagnosticsOutput>
        @OptionGroup var colors: ColorOptions
        @OptionGroup var exceptions: MergeOptions
        @OptionGroup var forecast: ForecastOptions
        @OptionGroup var sarif: SARIFOptions

        func run() async throws {
            try await ATSProbeCommand.guarded {
                try await runDiagnostics(targets: targets + exceptions.inputTargets(), diagnostics: diagnostics,
                                         connection: connection, output: output, colors: colors, exceptions: exceptions,
                                         forecastSeconds: try forecast.horizonSeconds(), sarif: sarif)
            }
        }
    }
}

/// Shared by `--ats-diagnostics` and `diagnose`.
func runDiagnostics(targets texts: [String], diagnostics: DiagnosticsArguments, connection: ConnectionOptions,
                    output: OutputOptions<DiagnosticsOutput>, colors: ColorOptions, exceptions: MergeOptions,
                    forecastSeconds: Int? = nil, sarif: SARIFOptions = SARIFOptions()) async throws -> ExitStatus {
    guard !texts.isEmpty else { throw InputError(.badArgument, "give at least one target (URL, HOST or HOST:PORT)") }
    let sarifCategory = try sarif.category(format: output.effectiveFormat)
    if diagnostics.allRuleSets {
        // --rules all is another result (RuleSetMatrixOutput), with formats of its own.
        guard RuleSetMatrixOutput.formats.contains(output.effectiveFormat) else {
            throw InputError(.badArgument, "--rules all writes \(RuleSetMatrixOutput.outputs.sentence) only (run one rule set for \(output.effectiveFormat.rawValue))")
        }
        return try await runRuleSetMatrix(targets: texts, connection: connection, output: output, colors: colors, exceptions: exceptions,
                                          forecastSeconds: forecastSeconds)
    }
    let context = try connection.context(ruleSet: try diagnostics.ruleSet(), forecastHorizonSeconds: forecastSeconds)
    let targets = try texts.map { try context.target($0) }
    // --merge: read the app's plist before any connection; it decides the output.
    let mergeDocument = try exceptions.mergeDocument()
    let ruleSet = context.ruleSet
    let runner = try context.runner(naming: connection)
    let run = RunInfo(context: context, ruleSet: ruleSet.id)
    let format = mergeDocument == nil ? output.effectiveFormat : .plist
    let palette = colors.palette(format: format, path: output.output)
    // nscurl streams: on a terminal the header shows at once and each test as it completes.
    let live = format == .text && output.output == nil && !diagnostics.quiet
        && isatty(STDOUT_FILENO) == 1 && isatty(STDERR_FILENO) == 1
    var sink = OutputSink(path: output.output)
    let verbose = diagnostics.verbose
    // --at: the text says which instant certificates are judged at (JSON carries run.judgedAt).
    if format == .text, let judgedAt = run.judgedAt {
        let line = "Certificates judged at \(RequestedInstant.iso(judgedAt)) (--at)\n\n"
        if output.output == nil { FileStream.standardOutput.write(line) } else { sink.write(line) }
    }
    let reports: [DiagnosticsReport]
    // Text: each target's document through DiagnosticsOutput's text renderer (DiagnosticsText),
    // the live run's piece by piece through the same one (DiagnosticsText.Stream).
    if live {
        // One target at a time, each test shown as it completes, under the target's header.
        let shown = DiagnosticsText.Live(DiagnosticsText.Stream(verbose: verbose, palette: palette))
        let work = StreamingDiagnosticsWork(runner: runner) { _, _, test in
            FileStream.standardOutput.write(await shown.test(DiagnosticsJSON.TestJSON(test)))
        }
        let events = await AuditScheduler(limits: .inOrder(concurrency: 1), work: work).runInOrder(targets) { event in
            switch event {
            case .started(let position, let target):
                if position > 0 { FileStream.standardOutput.write("\n") }
                FileStream.standardOutput.write(await shown.header(TargetReport(target)))
            case .finished(_, _, let report):
                FileStream.standardOutput.write(await shown.footer(DiagnosticsJSON(report, run: run)))
            case .timedOut, .failedLocally, .rejected: break
            }
        }
        reports = try TargetRunError.reports(of: events, targets: targets)
    } else {
        // A few targets at a time (AuditLimits.inOrder), in the order given: on standard output
        // each target's text as soon as it and every target before it are done.
        let streams = format == .text && output.output == nil
        let events = await AuditScheduler(limits: .inOrder(), work: runner).runInOrder(targets, inOrder: { position, report in
            guard streams else { return }
            // The registry's text renderer, one target's document at a time.
            FileStream.standardOutput.write((position > 0 ? "\n" : "") + DiagnosticsText.render(DiagnosticsJSON(report, run: run), verbose: verbose, palette: palette))
        })
        reports = try TargetRunError.reports(of: events, targets: targets)
    }
    let status = reports.map { ExitStatus($0.severity) }.max() ?? .clear
    let documents = reports.map { DiagnosticsJSON($0, run: run) }
    if let mergeDocument, let path = exceptions.merge {
        // --merge: the suggested entries merged into the app's property list, by the plist renderer.
        try MergeRun.write(documents, into: mergeDocument, path: path, format: exceptions.mergeFormat?.format, outputPath: output.output,
                           includeSubdomains: exceptions.includeSubdomains, ruleSet: ruleSet) { merged in
            var sink = OutputSink(path: output.output)
            try sink.write(merged, as: .plist)
            try sink.finish()
        }
        return status
    }
    // Text to standard output went out as each target finished.
    if format != .text || output.output != nil {
        try sink.write(DiagnosticsOutput(documents, includeSubdomains: exceptions.includeSubdomains), as: format,
                       options: RenderOptions(verbose: verbose, palette: palette, junitCases: diagnostics.junitCases.cases, sarifCategory: sarifCategory))
    }
    try sink.finish()
    return status
}

/// `diagnose --rules all`: nscurl's tests under every rule set, on shared handshakes, as one grid
/// per target (text) or one document per target (JSON). docs/usage.md, docs/json-schema.md.
/// `--forecast`: each rule set's run forecasts its own verdict (the context's horizon reaches
/// every rule set's runner), shown per rule set under the grid and in each JSON `reports` entry.
func runRuleSetMatrix(targets texts: [String], connection: ConnectionOptions, output: OutputOptions<DiagnosticsOutput>,
                      colors: ColorOptions, exceptions: MergeOptions, forecastSeconds: Int? = nil) async throws -> ExitStatus {
    let format = output.effectiveFormat
    guard try exceptions.mergeDocument() == nil else { throw InputError(.badArgument, "--rules all cannot be combined with --merge") }
    let context = try connection.context(ruleSet: .current, forecastHorizonSeconds: forecastSeconds)
    let targets = try texts.map { try context.target($0) }
    let runner = try context.runner(naming: connection)
    let run = RunInfo(context: context, ruleSet: "all")
    let palette = colors.palette(format: format, path: output.output)
    var sink = OutputSink(path: output.output)
    // One target at a time (its rule sets' runs already go together), printed in the order given.
    let events = await AuditScheduler(limits: .inOrder(concurrency: 1), work: RuleSetMatrixWork(runner: runner, ruleSets: RuleSet.inReleaseOrder))
        .runInOrder(targets)
    let matrices = try TargetRunError.reports(of: events, targets: targets)
    let status = matrices.map { $0.reports.map { ExitStatus($0.severity) }.max() ?? .clear }.max() ?? .clear
    try sink.write(RuleSetMatrixOutput(matrices.map { RuleSetMatrixDocument($0, run: run) }, run: run), as: format,
                   options: RenderOptions(palette: palette))
    try sink.finish()
    return status
}

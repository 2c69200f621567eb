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
    @Option(name: .long, help: ArgumentHelp("ATS rule set to judge by: \(RuleSet.all.map(\.id).joined(separator: ", ")). Default: \(RuleSet.default.id) (a current iPhone or Mac). diagnose also takes 'all': every rule set, side by side.", valueName: "name"),
            completion: .list(RuleSet.all.map(\.id) + ["all"]))
    var rules: String = RuleSet.default.id

    /// `--rules all` (diagnose and --ats-diagnostics only): every rule set on the same handshakes.
    var allRuleSets: Bool { rules.lowercased() == "all" }

    @Flag(name: .shortAndLong, help: "Show each test's ATS dictionary and, on failure, the error.")
    var verbose = false

    @Flag(name: .shortAndLong, help: "No progress, live output or closing summary on standard error; errors still.")
    var quiet = false

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
        @OptionGroup var output: OutputOptions<DiagnosticsFormats>
        @OptionGroup var colors: ColorOptions
        @OptionGroup var exceptions: MergeOptions

        func run() async throws {
            try await ATSProbeCommand.guarded {
                try await runDiagnostics(targets: targets + exceptions.inputTargets(), diagnostics: diagnostics,
                                         connection: connection, output: output, colors: colors, exceptions: exceptions)
            }
        }
    }
}

/// Shared by `--ats-diagnostics` and `diagnose`.
func runDiagnostics(targets texts: [String], diagnostics: DiagnosticsArguments, connection: ConnectionOptions,
                    output: OutputOptions<DiagnosticsFormats>, colors: ColorOptions, exceptions: MergeOptions) async throws -> ExitStatus {
    guard !texts.isEmpty else { throw InputError("give at least one target (URL, HOST or HOST:PORT)") }
    if diagnostics.allRuleSets {
        return try await runRuleSetMatrix(targets: texts, connection: connection, output: output, colors: colors, exceptions: exceptions)
    }
    let targets = try texts.map { try connection.target($0) }
    // --merge: read the app's plist before any connection; it decides the output.
    let mergeDocument = try exceptions.mergeDocument()
    let ruleSet = try diagnostics.ruleSet()
    let logs = try connection.ctLogs()
    let prober = try makeProber(connection, logs: logs)
    let runner = DiagnosticsRunner(prober: prober, options: try connection.diagnosticsOptions(ruleSet: ruleSet, logs: logs))
    let run = RunInfo(ruleSet: ruleSet.id, connection: connection, logs: logs)
    let format = mergeDocument == nil ? output.effectiveFormat : .plist
    let palette = colors.palette(format: format, path: output.output)
    // nscurl streams: on a terminal the header shows at once and each test as it completes.
    let live = format == .text && output.output == nil && !diagnostics.quiet
        && isatty(STDOUT_FILENO) == 1 && isatty(STDERR_FILENO) == 1
    var sink = OutputSink(path: output.output)
    var status = ExitStatus.clear
    var reports: [DiagnosticsReport] = []
    var documents: [DiagnosticsJSON] = []
    for (position, target) in targets.enumerated() {
        let report: DiagnosticsReport
        if live {
            if position > 0 { FileStream.standardOutput.write("\n") }
            FileStream.standardOutput.write(DiagnosticsText.header(target))
            let shown = LiveTests()
            report = await runner.run(target) { index, test in
                let previous = await shown.record(test)
                FileStream.standardOutput.write(DiagnosticsText.test(test, index: index, previous: previous, host: target.host,
                                                                     verbose: diagnostics.verbose, palette: palette))
            }
            FileStream.standardOutput.write(DiagnosticsText.footer(report, verbose: diagnostics.verbose))
        } else {
            report = await runner.run(target)
            if format == .text {
                if position > 0 { sink.writeLine() }
                sink.write(DiagnosticsText.render(report, verbose: diagnostics.verbose, palette: palette))
            }
        }
        if let failure = report.localFailure {
            throw LocalFailure("\(target.url): \(ProbeText.describe(failure))")
        }
        reports.append(report)
        documents.append(DiagnosticsJSON(report, run: run))
        status = max(status, DiagnosticsText.exitStatus(for: report))
    }
    switch format {
    case .text: break
    case .plist:
        try ExceptionPlist.write(reports, options: exceptions, document: mergeDocument, ruleSet: ruleSet, output: output)
        return status
    case .json:
        let encoder = JSONEncoder.atsprobe()
        let data = documents.count == 1 ? try encoder.encode(documents[0]) : try encoder.encode(documents)
        sink.write(String(decoding: data, as: UTF8.self) + "\n")
    case .html, .csv, .markdown:
        // Rendered from the documents as records, as `atsprobe report` renders the JSON file.
        sink.write(Report(documents.map(AuditRecord.document)).render(format.reportFormat, verbose: diagnostics.verbose))
    case .xcode, .sarif:
        // DiagnosticsFormats parses neither (plist lint and plist check write them).
        throw InputError("diagnose writes text, json, plist, html, csv or markdown only")
    }
    try sink.finish()
    return status
}

/// The tests shown so far, so each streamed test knows whether it opens a new section.
actor LiveTests {
    private var last: TestOutcome?

    /// Returns the test shown before this one, and remembers this one.
    func record(_ test: TestOutcome) -> TestOutcome? {
        defer { last = test }
        return last
    }
}

/// `diagnose --rules all`: nscurl's tests under every rule set, on shared handshakes, as one grid
/// per target (text) or one document per target (JSON). docs/usage.md, docs/json-schema.md.
func runRuleSetMatrix(targets texts: [String], connection: ConnectionOptions, output: OutputOptions<DiagnosticsFormats>,
                      colors: ColorOptions, exceptions: MergeOptions) async throws -> ExitStatus {
    let format = output.effectiveFormat
    guard format == .text || format == .json else {
        throw InputError("--rules all writes text or json only (run one rule set for \(format.rawValue))")
    }
    guard try exceptions.mergeDocument() == nil else { throw InputError("--rules all cannot be combined with --merge") }
    let targets = try texts.map { try connection.target($0) }
    let logs = try connection.ctLogs()
    let runner = DiagnosticsRunner(prober: try makeProber(connection, logs: logs),
                                   options: try connection.diagnosticsOptions(ruleSet: .default, logs: logs))
    let run = RunInfo(ruleSet: "all", connection: connection, logs: logs)
    let palette = colors.palette(format: format, path: output.output)
    var sink = OutputSink(path: output.output)
    var status = ExitStatus.clear
    var documents: [RuleSetMatrixJSON] = []
    for (position, target) in targets.enumerated() {
        let matrix = await runner.runAcrossRuleSets(target, ruleSets: RuleSet.all)
        if let failure = matrix.reports.lazy.compactMap(\.localFailure).first {
            throw LocalFailure("\(target.url): \(ProbeText.describe(failure))")
        }
        status = max(status, RuleSetMatrixText.exitStatus(matrix))
        if format == .text {
            if position > 0 { sink.writeLine() }
            sink.write(RuleSetMatrixText.render(matrix, palette: palette))
        } else {
            documents.append(RuleSetMatrixJSON(matrix, run: run))
        }
    }
    if format == .json {
        let encoder = JSONEncoder.atsprobe()
        let data = documents.count == 1 ? try encoder.encode(documents[0]) : try encoder.encode(documents)
        sink.write(String(decoding: data, as: UTF8.self) + "\n")
    }
    try sink.finish()
    return status
}

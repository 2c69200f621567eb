import ATSReport
import ATSAdvice
import ATSApp
import ATSPolicy
import PropertyList
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

// Each command's result and the formats it renders, one registry per result (OutputRegistry):
// the command line parses, lists and documents `--format` from these, and renders through them.
// `report`'s (ATSReport's `Report`, `ComparisonOutput`) need no engine value and live with the
// contract's renderers.

/// `diagnose` (and `--ats-diagnostics`): the targets' documents in the order given (the engine
/// writes each, ATSEngine's `DiagnosticsJSON+Engine.swift`). The report formats are rendered from
/// them as records, as `atsprobe report` renders the JSON file.
package struct DiagnosticsOutput: RenderedResult {
    package var documents: [DiagnosticsJSON]
    /// --include-subdomains: the suggested plist's entries cover subdomains.
    package var includeSubdomains: Bool
    /// --merge: the app's property list `--format plist` merges the entries into.
    package var merge: PlistMergeInput?

    package init(_ documents: [DiagnosticsJSON], includeSubdomains: Bool, merge: PlistMergeInput? = nil) {
        self.documents = documents
        self.includeSubdomains = includeSubdomains
        self.merge = merge
    }

    package var asReport: Report { Report(documents.map(AuditRecord.document)) }

    /// `Report`'s renderer of `format`, over the documents.
    private static func report(_ format: OutputFormat) -> OutputRegistry<DiagnosticsOutput>.Renderer {
        { out, options in try out.asReport.rendered(format, options: options) }
    }

    package static let outputs = OutputRegistry<DiagnosticsOutput>([
        .text: { out, options in
            Rendered(out.documents.map { DiagnosticsText.render($0, verbose: options.verbose, palette: options.palette) }.joined(separator: "\n"))
        },
        .json: { out, _ in out.documents.count == 1 ? try .json(out.documents[0]) : try .json(out.documents) },
        // One merged dictionary, or the app's property list with it merged in (--merge); each
        // host no exception helps is said on standard error.
        .plist: { out, _ in
            let suggested = ExceptionPlist.suggested(out.documents, includeSubdomains: out.includeSubdomains)
            if let merge = out.merge { return try ExceptionPlist.merged(suggested, into: merge) }
            return Rendered(try ExceptionPlist.render(suggested.configuration), standardError: ExceptionPlist.unhelpableLines(suggested))
        },
        .html: report(.html),
        .csv: report(.csv),
        .markdown: report(.markdown),
        .junit: report(.junit),
        .sarif: report(.sarif),
    ])
}

/// `diagnose --rules all`: nscurl's tests under every rule set, one grid (text) or document
/// (JSON) per target, from each target's documents (`RuleSetMatrixDocument`, the engine's).
package struct RuleSetMatrixOutput: RenderedResult {
    package var matrices: [RuleSetMatrixDocument]
    package var run: RunInfo

    package init(_ matrices: [RuleSetMatrixDocument], run: RunInfo) {
        self.matrices = matrices
        self.run = run
    }

    private var grids: [RuleSetMatrixGrid] { matrices.map(RuleSetMatrixGrid.init) }

    package static let outputs = OutputRegistry<RuleSetMatrixOutput>([
        .text: { out, options in
            Rendered(out.grids.map { RuleSetMatrixText.render($0, palette: options.palette) }.joined(separator: "\n"))
        },
        .json: { out, _ in
            let documents = out.matrices.map { RuleSetMatrixJSON(RuleSetMatrixGrid($0), reports: $0.reports) }
            return documents.count == 1 ? try .json(documents[0]) : try .json(documents)
        },
        .html: { out, _ in Rendered(RuleSetMatrixHTML.render(out.grids, run: out.run)) },
        .csv: { out, _ in Rendered(RuleSetMatrixCSV.render(out.grids)) },
        .markdown: { out, _ in Rendered(RuleSetMatrixMarkdown.render(out.grids, run: out.run)) },
    ])
}

/// `audit`: text, JSON Lines and the merged plist as targets finish (AuditSink), and every other
/// format of a report (`Report`) once all are done.
package enum AuditFormats: FormatSet {
    /// What the sink writes as each target finishes; the rest are `Report`'s.
    package static let streamed: [OutputFormat] = [.text, .json, .plist]
    package static let formats: [OutputFormat] = streamed + Report.formats.filter { !streamed.contains($0) }
}

/// `probe`: every fact of one handshake, from its document (ProbeReport, which the engine writes).
package struct ProbeOutput: RenderedResult {
    package var report: ProbeReport
    /// The CT logs the run knew, to name each SCT's log in the text.
    package var logs: CTLogList

    package init(report: ProbeReport, logs: CTLogList) {
        self.report = report
        self.logs = logs
    }

    package static let outputs = OutputRegistry<ProbeOutput>([
        .text: { out, options in Rendered(ProbeText.render(out.report, logs: out.logs, palette: options.palette)) },
        .json: { out, _ in try .json(out.report) },
    ])
}

extension PinsReport: RenderedResult {
    package static let outputs = OutputRegistry<PinsReport>([
        .text: { report, _ in Rendered(try PinsText.render(report)) },
        .json: { report, _ in try .json(report) },
        // Only the plist goes to standard output; without a handshake there is none, and the
        // exit status says why (2 unreachable, 1 handshake failed).
        .plist: { report, _ in
            if let plist = try report.plistText() { return Rendered(plist) }
            return Rendered("", standardError: report.failure.map { Rendered.warning("no plist: handshake failed: \(ProbeText.describe($0))") } ?? "")
        },
    ])
}

extension CertReport: RenderedResult {
    package static let outputs = OutputRegistry<CertReport>([
        .text: { report, _ in Rendered(CertText.render(report)) },
        .json: { report, _ in try .json(report) },
    ])
}

/// `plist lint`: the findings, and where each is in the file.
package struct PlistLintOutput: RenderedResult {
    package var file: String
    package var document: PropertyListDocument
    package var bytes: Data
    package var findings: [LintFinding]
    /// Text: the closing count (`-q` drops it).
    package var count: Bool
    /// The tool and when it ran; no rule set, trust store or CT list is used.
    package var run: RunInfo

    package init(file: String, document: PropertyListDocument, bytes: Data, findings: [LintFinding], count: Bool, run: RunInfo) {
        self.file = file
        self.document = document
        self.bytes = bytes
        self.findings = findings
        self.count = count
        self.run = run
    }

    private var locations: PlistLocations { PlistLocations(path: file, document: document, bytes: bytes) }

    package static let outputs = OutputRegistry<PlistLintOutput>([
        .text: { out, _ in Rendered(PlistLintText.render(out.findings, count: out.count)) },
        .json: { out, _ in try .json(PlistLintJSON(file: out.file, format: out.document.format.rawValue, findings: out.findings, run: out.run)) },
        .xcode: { out, _ in Rendered(PlistDiagnostics.xcode(PlistDiagnostics.lint(out.findings), locations: out.locations)) },
        .sarif: { out, options in
            .sarif(PlistDiagnostics.sarif(PlistDiagnostics.lint(out.findings), rules: PlistDiagnostics.lintRules, locations: out.locations,
                                          toolVersion: out.run.toolVersion), category: options.sarifCategory)
        },
    ])
}

/// `plist lint --format json`.
package struct PlistLintJSON: Encodable {
    package let schemaVersion = jsonSchemaVersion
    package let file: String
    package let format: String
    package let findings: [LintFinding]
    package var run: RunInfo

    package init(file: String, format: String, findings: [LintFinding], run: RunInfo) {
        self.file = file
        self.format = format
        self.findings = findings
        self.run = run
    }
}

/// `plist check`: each target's load under the file's dictionary, and the dictionary tightened,
/// from its document (PlistCheckJSON, which the engine writes); the file's bytes place the
/// Xcode and SARIF results at their lines.
package struct PlistCheckOutput: RenderedResult {
    package var report: PlistCheckJSON
    package var document: PropertyListDocument
    package var bytes: Data
    package var toolVersion: String

    package init(report: PlistCheckJSON, document: PropertyListDocument, bytes: Data, toolVersion: String) {
        self.report = report
        self.document = document
        self.bytes = bytes
        self.toolVersion = toolVersion
    }

    private var locations: PlistLocations { PlistLocations(path: report.file, document: document, bytes: bytes) }
    private var diagnostics: [PlistDiagnostic] { PlistDiagnostics.check(report.targets, report.findings) }

    package static let outputs = OutputRegistry<PlistCheckOutput>([
        .text: { out, options in Rendered(PlistCheckText.render(out.report, verbose: options.verbose, palette: options.palette)) },
        .json: { out, _ in try .json(out.report) },
        .plist: { out, _ in Rendered(out.report.tightenedPlist) },
        .xcode: { out, _ in Rendered(PlistDiagnostics.xcode(out.diagnostics, locations: out.locations)) },
        .sarif: { out, options in
            let diagnostics = out.diagnostics
            return .sarif(PlistDiagnostics.sarif(diagnostics, rules: PlistDiagnostics.checkRules(for: diagnostics), locations: out.locations,
                                                 toolVersion: out.toolVersion), category: options.sarifCategory)
        },
    ])
}

/// `plist explain`: what ATS does for each target under the file's dictionary, offline.
package struct PlistExplainOutput: RenderedResult {
    package var file: String
    package var ruleSet: RuleSet
    package var explanations: [PolicyExplanation]

    package init(file: String, ruleSet: RuleSet, explanations: [PolicyExplanation]) {
        self.file = file
        self.ruleSet = ruleSet
        self.explanations = explanations
    }

    package static let outputs = OutputRegistry<PlistExplainOutput>([
        .text: { out, _ in Rendered(PlistExplainText.render(file: out.file, ruleSet: out.ruleSet, explanations: out.explanations)) },
        .json: { out, _ in try .json(PlistExplainJSON(file: out.file, ruleSet: out.ruleSet.id, results: out.explanations)) },
    ])
}

/// `plist explain --json` (docs/json-schema.md, "plist explain").
package struct PlistExplainJSON: Encodable {
    package var schemaVersion = 2
    package var command = "plist explain"
    package var file: String
    package var ruleSet: String
    package var results: [PolicyExplanation]

    package init(file: String, ruleSet: String, results: [PolicyExplanation]) {
        self.file = file
        self.ruleSet = ruleSet
        self.results = results
    }
}

/// `app`: every bundle's dictionary judged on the hosts the app names, from its document
/// (AppJSON, which CommandRuns writes from the engine's AppReport).
package struct AppOutput: RenderedResult {
    /// With its run set.
    package var report: AppJSON
    /// --bundle: the bundle whose tightened dictionary `--format plist` prints ("" the app's).
    package var plistBundle: String
    /// --source-plist: where SARIF places each bundle's results.
    package var sources: [String: AppSARIF.SourcePlist]
    package var toolVersion: String

    package init(report: AppJSON, plistBundle: String, sources: [String: AppSARIF.SourcePlist], toolVersion: String) {
        self.report = report
        self.plistBundle = plistBundle
        self.sources = sources
        self.toolVersion = toolVersion
    }

    package static let outputs = OutputRegistry<AppOutput>([
        .text: { out, options in Rendered(AppText.render(out.report, verbose: options.verbose, palette: options.palette)) },
        .json: { out, _ in try .json(out.report) },
        .plist: { out, _ in
            let result = out.report.results.first { $0.bundle.path == out.plistBundle }
            if let plist = result?.tightenedPlist { return Rendered(plist) }
            // No host checked under it: nothing measured, so the dictionary as it is.
            return Rendered(try ExceptionPlist.tightened(result?.bundle.atsDictionary ?? [:]),
                            standardError: Rendered.warning("no host was checked under \(out.report.name(out.plistBundle))'s dictionary; printing it unchanged"))
        },
        .markdown: { out, _ in Rendered(AppMarkdown.render(out.report)) },
        .html: { out, _ in Rendered(AppHTML.render(out.report)) },
        .sarif: { out, options in .sarif(AppSARIF.log(out.report, toolVersion: out.toolVersion, sources: out.sources), category: options.sarifCategory) },
    ])
}

/// Each subcommand's formats by its name on the command line, from the results' registries: what
/// docs/usage.md's "Formats" table and each command's `--help` list (FormatListTests compares the
/// three).
package enum CommandFormats {
    package static let all: [(command: String, formats: [OutputFormat])] = [
        ("diagnose", DiagnosticsOutput.formats),
        ("audit", AuditFormats.formats),
        ("report", Report.formats),
        ("probe", ProbeOutput.formats),
        ("pins", PinsReport.formats),
        ("cert", CertReport.formats),
        ("plist lint", PlistLintOutput.formats),
        ("plist check", PlistCheckOutput.formats),
        ("plist explain", PlistExplainOutput.formats),
        ("app", AppOutput.formats),
    ]

    /// The commands that write `format`, in `all`'s order.
    package static func commands(writing format: OutputFormat) -> [String] {
        all.filter { $0.formats.contains(format) }.map(\.command)
    }
}

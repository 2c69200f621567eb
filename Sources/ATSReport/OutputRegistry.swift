#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What every renderer may read besides the result: the options of the command line that shape
/// an output (not what it says).
package struct RenderOptions: Sendable {
    /// Text: each test's dictionary and error.
    package var verbose: Bool
    /// Text: colour for the verdict words.
    package var palette: Palette
    /// JUnit: a testcase per target or per nscurl test.
    package var junitCases: ReportJUnit.Cases
    /// SARIF: `runs[].automationDetails.id`.
    package var sarifCategory: String?
    /// The metrics formats: labels on every series.
    package var metricsLabels: MetricsLabels

    package init(verbose: Bool = false, palette: Palette = Palette(enabled: false), junitCases: ReportJUnit.Cases = .targets,
                 sarifCategory: String? = nil, metricsLabels: MetricsLabels = MetricsLabels()) {
        self.verbose = verbose
        self.palette = palette
        self.junitCases = junitCases
        self.sarifCategory = sarifCategory
        self.metricsLabels = metricsLabels
    }
}

/// One rendering: the output's text, and what to say on standard error (a SARIF log cut to
/// GitHub's limit, a dictionary printed unchanged), whole lines.
package struct Rendered: Sendable {
    package var text: String
    package var standardError: String
    /// A rendering that is bytes, not text (the app's property list with entries merged in,
    /// binary or as its file spells it): written as is, in place of `text` (which is then empty).
    package var bytes: [UInt8]?

    package init(_ text: String, standardError: String = "") {
        self.text = text
        self.standardError = standardError
    }

    package init(bytes: [UInt8], standardError: String = "") {
        text = ""
        self.bytes = bytes
        self.standardError = standardError
    }

    /// "atsprobe: <message>", a line for standard error.
    package static func warning(_ message: String) -> String { "atsprobe: \(message)\n" }

    /// A SARIF log with its category, cut to GitHub's limit (the cut is a warning).
    package static func sarif(_ log: SARIFLog, category: String?) -> Rendered {
        let (finished, warning) = log.finished(category: category)
        return Rendered(finished.json, standardError: warning.map(Rendered.warning) ?? "")
    }

    /// A value as atsprobe's JSON (`JSONEncoder.atsprobe()`), one document and a newline.
    package static func json<Value: Encodable>(_ value: Value) throws -> Rendered {
        Rendered(String(decoding: try JSONEncoder.atsprobe().encode(value), as: UTF8.self) + "\n")
    }
}

/// One command result's formats, each with its renderer, in the order help lists them: the one
/// place a command's output is declared (as sslyze's scan-command registry owns each command's
/// output). A new format of a command is a case of `OutputFormat` and an entry here.
package struct OutputRegistry<Result>: Sendable {
    package typealias Renderer = @Sendable (Result, RenderOptions) throws -> Rendered

    private let entries: [(format: OutputFormat, render: Renderer)]

    package init(_ entries: KeyValuePairs<OutputFormat, Renderer>) {
        self.entries = entries.map { ($0.key, $0.value) }
    }

    /// The formats, in help's order.
    package var formats: [OutputFormat] { entries.map(\.format) }

    /// The renderer of `format`; nil for a format the result does not render (the command line
    /// never parses one: `FormatChoice` takes only `formats`).
    package func renderer(_ format: OutputFormat) -> Renderer? {
        entries.first { $0.format == format }?.render
    }

    /// `result` in `format`. A format outside `formats` is an internal error: the command line
    /// refuses it while parsing, so no command reaches this with one.
    package func render(_ result: Result, as format: OutputFormat, options: RenderOptions = RenderOptions()) throws -> Rendered {
        guard let render = renderer(format) else { throw NotRendered(format: format) }
        return try render(result, options)
    }

    /// "text, json or plist": the formats as a sentence, for an error that names them.
    package var sentence: String {
        let names = formats.map(\.rawValue)
        guard names.count > 1, let last = names.last else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " or " + last
    }
}

/// A rendering that failed after it had something to say on standard error (`diagnose --merge`:
/// the targets no entry helps, then an app's file that cannot take the entries): the lines are
/// written, then `error` is the command's.
package struct RenderingFailed: Error {
    package var standardError: String
    package var error: any Error

    package init(standardError: String, error: any Error) {
        self.standardError = standardError
        self.error = error
    }
}

/// A format a result does not render, asked of its registry (an internal error, exit 70).
package struct NotRendered: Error, CustomStringConvertible {
    package let format: OutputFormat
    package var description: String { "internal error: no renderer for --format \(format.rawValue)" }
}

/// A command's formats: what `--format` parses, help lists and docs/usage.md documents.
package protocol FormatSet {
    static var formats: [OutputFormat] { get }
}

/// A command's result: the formats it renders, each with its renderer.
package protocol RenderedResult: FormatSet {
    static var outputs: OutputRegistry<Self> { get }
}

extension RenderedResult {
    package static var formats: [OutputFormat] { outputs.formats }

    /// This result in `format` (one of `formats`).
    package func rendered(_ format: OutputFormat, options: RenderOptions = RenderOptions()) throws -> Rendered {
        try Self.outputs.render(self, as: format, options: options)
    }
}

import ATSContract
import ATSPolicy
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport
import TLSFacts

/// ANSI colour for the PASS/FAIL words; nothing else is coloured.
public struct Palette: Sendable {
    public let enabled: Bool
    public init(enabled: Bool) { self.enabled = enabled }
    public func pass(_ text: String) -> String { enabled ? "\u{1B}[32m\(text)\u{1B}[0m" : text }
    public func fail(_ text: String) -> String { enabled ? "\u{1B}[31m\(text)\u{1B}[0m" : text }
    public func warn(_ text: String) -> String { enabled ? "\u{1B}[33m\(text)\u{1B}[0m" : text }
}

/// Everything a report shows: the targets in input order, the counts and the run's metadata.
/// Built from records (`AuditRecord`), by a live run or by `atsprobe report` from a file.
public struct Report: Sendable {
    public let records: [AuditRecord]
    public let tally: AuditTally
    public let run: RunInfo?
    /// The run's end: the latest record's finishedAt.
    package let endedAt: Date?

    public init(_ records: [AuditRecord]) {
        self.records = records.sorted(by: AuditRecord.inputOrder)
        var tally = AuditTally()
        for record in records { tally.add(record.verdict, keys: record.exceptionKeys.map(\.key)) }
        self.tally = tally
        // The earliest start: one run's records all carry the same; merged shards each their own.
        run = records.compactMap(\.run).min { $0.startedAt < $1.startedAt }
        endedAt = records.compactMap(\.finishedAt).max()
    }

    /// nscurl's test titles, in order (`NSCurlMatrix.titles`, the one list); empty when no record
    /// ran any test (all bad lines, timeouts).
    public var testTitles: [String] {
        records.contains { !$0.tests.isEmpty } ? NSCurlMatrix.titles : []
    }

    /// A record's results by test title, in `NSCurlMatrix.titles` order: nil where it has no
    /// such test (a record written before a test was added), whatever its count.
    static func passed(_ tests: [DiagnosticsJSON.TestJSON]) -> [Bool?] {
        let byTitle = Dictionary(tests.map { ($0.title, $0.verdict.passed) }, uniquingKeysWith: { first, _ in first })
        return NSCurlMatrix.titles.map { byTitle[$0] }
    }

    /// One row of a report's matrix: the targets of one origin (scheme, host, port) whose
    /// verdict and 16 results are the same, so a site audited at 20 paths is one row with its
    /// URLs under it, not 20 copies of the same cells. Paths of one origin share their
    /// handshakes' outcome but can differ (a redirect, an HTTP failure): each distinct result
    /// is a row of its own, under the same origin. A bad input line, which names no origin,
    /// is a row of its own.
    public struct OriginRow: Sendable {
        /// "https://host[:port]" (the port when it is not the scheme's default), or the input
        /// line's text for a line that never became a target.
        public var origin: String
        public var verdict: AuditVerdict
        /// Per test title (`testTitles`): passed, or nil when the target has no such test.
        public var cells: [Bool?]
        /// Indexes into `records`, in input order.
        public var members: [Int]
    }

    /// The matrix's rows, in the order each origin first appears in the input.
    public var originRows: [OriginRow] {
        Report.originRows(records.map { (Report.origin($0), $0.name, $0.verdict, Report.passed($0.tests)) },
                          testCount: testTitles.count)
    }

    /// The grouping of `originRows`, over what it reads of each target (in input order): its
    /// origin (nil for a bad input line), name, verdict and each test's result. The text matrix
    /// (`ReportTextMatrix`) groups the targets an audit keeps with it, so every format groups alike.
    static func originRows(_ targets: [(origin: String?, name: String, verdict: AuditVerdict, passed: [Bool?])],
                           testCount count: Int) -> [OriginRow] {
        var rows: [OriginRow] = []
        var byKey: [String: Int] = [:]
        for (index, target) in targets.enumerated() {
            let cells: [Bool?] = (0..<count).map { $0 < target.passed.count ? target.passed[$0] : nil }
            let key = "\(target.origin ?? "#\(index)")|\(target.verdict.rawValue)|" + cells.map { $0.map { $0 ? "1" : "0" } ?? "-" }.joined()
            if let row = byKey[key] {
                rows[row].members.append(index)
            } else {
                byKey[key] = rows.count
                rows.append(OriginRow(origin: target.origin ?? target.name, verdict: target.verdict, cells: cells, members: [index]))
            }
        }
        // Rows of one origin together, in first-appearance order.
        var firstSeen: [String: Int] = [:]
        for (position, row) in rows.enumerated() where firstSeen[row.origin] == nil { firstSeen[row.origin] = position }
        return rows.enumerated().sorted { (firstSeen[$0.element.origin]!, $0.offset) < (firstSeen[$1.element.origin]!, $1.offset) }.map(\.element)
    }

    /// A record's origin, "scheme://host[:port]"; nil for a bad input line (no target).
    package static func origin(_ record: AuditRecord) -> String? {
        guard let target = record.target, let scheme = target.url.split(separator: ":", maxSplits: 1).first else { return nil }
        let host = target.host.contains(":") ? "[\(target.host)]" : target.host
        let standard = (scheme == "https" && target.port == 443) || (scheme == "http" && target.port == 80)
        return "\(scheme)://\(host)" + (standard ? "" : ":\(target.port)")
    }

    /// How a member is named under its origin's row: its URL without the origin ("/v1/items"),
    /// or the whole name when it does not start with it.
    package static func path(of record: AuditRecord, under origin: String) -> String {
        path(ofName: record.name, under: origin)
    }

    static func path(ofName name: String, under origin: String) -> String {
        name.hasPrefix(origin) && name.count > origin.count ? String(name.dropFirst(origin.count)) : name
    }

    /// The run's metadata as label/value rows, for every format.
    package var metadataRows: [(String, String)] {
        var rows: [(String, String)] = []
        if let run {
            rows.append(("Tool", "\(run.tool) \(run.toolVersion)"))
            rows.append(("OpenSSL", run.openSSLVersion))
            rows.append(("Rule set", run.ruleSet ?? "none"))
            if let trustStore = run.trustStore { rows.append(("Trust store", trustStore)) }
            if let ctLogList = run.ctLogList { rows.append(("CT log list", ctLogList)) }
            rows.append(("Started", Report.iso(run.startedAt)))
            if let judgedAt = run.judgedAt { rows.append(("Certificates judged at", "\(Report.iso(judgedAt)) (--at)")) }
        }
        if let endedAt { rows.append(("Ended", Report.iso(endedAt))) }
        rows.append(("Targets", tally.line))
        return rows
    }

    package static func iso(_ date: Date) -> String { CivilCalendar.timestamp(secondsSinceEpoch: date.timeIntervalSince1970) }
}

extension Report: RenderedResult {
    /// The report's formats (`audit`, `diagnose` and `report --format`), from the records alone:
    /// what `atsprobe report FILE` renders without the engine. JSON is the records again as JSON
    /// Lines, in input order (shards merged into one file).
    package static let outputs = OutputRegistry<Report>([
        .text: { report, options in Rendered(ReportText.render(report, verbose: options.verbose, palette: options.palette)) },
        .json: { report, _ in
            let encoder = JSONEncoder.atsprobe()
            return Rendered(try report.records.map { String(decoding: try encoder.encode($0), as: UTF8.self) + "\n" }.joined())
        },
        .html: { report, _ in Rendered(ReportHTML.render(report)) },
        .csv: { report, _ in Rendered(ReportCSV.render(report)) },
        .markdown: { report, _ in Rendered(ReportMarkdown.render(report)) },
        .junit: { report, options in Rendered(ReportJUnit.render(report, cases: options.junitCases)) },
        // Cut to GitHub's limit, with the category (`--sarif-category`).
        .sarif: { report, options in .sarif(ReportSARIF.audit(report), category: options.sarifCategory) },
        .openmetrics: { report, options in Rendered(ReportMetrics.render(report, dialect: .openMetrics, labels: options.metricsLabels)) },
        .prometheus: { report, options in Rendered(ReportMetrics.render(report, dialect: .prometheus, labels: options.metricsLabels)) },
    ])
}

/// `audit`'s text: one line per target with its verdict, the exception's keys and values, and
/// the reason in one sentence; --verbose adds every test's dictionary and error under it. After
/// the lines, the matrix by origin (`ReportTextMatrix`).
public enum ReportText {
    /// `report`'s text: every target's entry in input order, whatever order the file holds
    /// them in (a single run's file is in finishing order), then the matrix.
    public static func render(_ report: Report, verbose: Bool, palette: Palette) -> String {
        report.records.map { entry($0, verbose: verbose, palette: palette) }.joined() + ReportTextMatrix(report).render()
    }

    package static func entry(_ record: AuditRecord, verbose: Bool, palette: Palette) -> String {
        var out = line(record, palette: palette) + "\n" + ReportForecast.textLines(record)
        if verbose { out += details(record) }
        return out
    }

    package static func line(_ record: AuditRecord, palette: Palette) -> String {
        let word = record.verdict.rawValue.uppercased()
        let padded = word.count >= 12 ? word : word + String(repeating: " ", count: 12 - word.count)
        let verdict = switch record.verdict {
        case .pass: palette.pass(padded)
        case .exception: palette.warn(padded)
        default: palette.fail(padded)
        }
        var text = "\(verdict) \(ReportEscaping.text(record.name, limit: 300))"
        switch record.verdict {
        case .pass:
            text += ": default ATS loads it"
        case .exception:
            let keys = record.exceptionKeys.map { ReportEscaping.text("\($0.key)=\($0.value)") }.joined(separator: ", ")
            text += ": needs \(keys)"
            if let reason = record.reason { text += ", because \(ReportEscaping.text(reason))" }
        case .noException:
            text += ": no exception helps: \(ReportEscaping.text(record.reason ?? "no reason recorded"))"
        case .error:
            let place = record.line.map { "line \($0)" } ?? "argument"
            text += " (\(place): \(ReportEscaping.text(record.reason ?? "")))"
        case .unreachable, .timeout:
            text += ": \(ReportEscaping.text(record.reason ?? "no reason recorded"))"
        }
        return text
    }

    /// Every test: result, dictionary and, on failure, the error and each reason.
    static func details(_ record: AuditRecord) -> String {
        var out = ""
        for test in record.tests {
            out += "    \(test.verdict.passed ? "PASS" : "FAIL") \(ReportEscaping.text(test.title))"
            out += "  \(ReportEscaping.text(PlistText.of(test.dictionary)))"
            out += "\n"
            guard !test.verdict.passed else { continue }
            if let error = test.verdict.error { out += "      error: \(ReportEscaping.text(error.nscurlDescription))\n" }
            for reason in test.verdict.reasons { out += "      reason: \(ReportEscaping.text(reason.message))\n" }
        }
        return out
    }
}

import ATSContract
import ATSPolicy

/// The text report's matrix (issue 25, item 3): nscurl's 16 tests as one-character columns,
/// one row per origin (scheme, host, port) and result, grouped as the HTML and Markdown group
/// them (`Report.originRows`), each row's URLs under it, and the tests named in a legend. It
/// follows the per-target lines of `report` and of `audit --format text`.
///
/// ```
/// nscurl's 16 tests by origin and result (. PASS, F FAIL, - not run):
///                       1111111
/// Verdict      1234567890123456  Origin
/// PASS         ................  https://shop.example (2 URLs)
///                                  /, /cart
/// EXCEPTION    FF..FFFFFFFFFFFF  https://old.example:8443/
/// Tests: 1 ATS Default Connection; 2 Allow All Loads; 3 TLSv1.3; ...
/// ```
///
/// The verdict and the 16 cells have a fixed width (31 columns), so the matrix reads on an
/// 80-column terminal; the origin, the URLs' paths and the legend are wrapped to `width`
/// (never cut; only the escaping's limit shortens a very long name). Every name is untrusted
/// text, escaped with `ReportEscaping.text`.
///
/// An audit adds its targets as they finish (`add`) and keeps for each only its place in the
/// input, name, origin, verdict and results, not the record (10,000 targets: 3.3 MiB more peak
/// memory, docs/audit.md); the matrix is drawn in input order, so the live run's equals
/// `atsprobe report`'s of its records.
package struct ReportTextMatrix: Sendable {
    /// What the matrix keeps of one target.
    struct Target: Sendable {
        var line: Int?
        var input: String?
        var name: String
        var origin: String?
        var verdict: AuditVerdict
        var passed: [Bool?]

        /// AuditRecord.inputOrder, on what is kept.
        static func inputOrder(_ a: Target, _ b: Target) -> Bool {
            ((a.line ?? 0), a.input ?? a.name) < ((b.line ?? 0), b.input ?? b.name)
        }
    }

    private var targets: [Target] = []
    /// nscurl's test titles (`NSCurlMatrix.titles`, as Report.testTitles) once a target ran any.
    private var titles: [String] = []

    /// The terminal width the wrapped parts fit.
    package static let width = 80

    package init() {}

    /// The matrix of a report's records.
    package init(_ report: Report) {
        for record in report.records { add(record) }
    }

    /// Keeps what the matrix needs of a finished target.
    package mutating func add(_ record: AuditRecord) {
        let target = Target(line: record.line, input: record.input, name: record.name, origin: Report.origin(record),
                            verdict: record.verdict, passed: Report.passed(record.tests))
        if !record.tests.isEmpty { titles = NSCurlMatrix.titles }
        targets.append(target)
    }

    /// The matrix, a blank line first; empty when no target ran the 16 tests (all bad lines,
    /// timeouts): then the per-target lines say everything.
    package func render(width: Int = ReportTextMatrix.width) -> String {
        guard !titles.isEmpty else { return "" }
        let ordered = targets.sorted(by: Target.inputOrder)
        let rows = Report.originRows(ordered.map { ($0.origin, $0.name, $0.verdict, $0.passed) }, testCount: titles.count)
        let numbers = 1...titles.count
        var out = "\nnscurl's \(titles.count) tests by origin and result (. PASS, F FAIL, - not run):\n"
        out += Self.column("", 13) + numbers.map { $0 >= 10 ? String($0 / 10 % 10) : " " }.joined() + "\n"
        out += Self.column("Verdict", 13) + numbers.map { String($0 % 10) }.joined() + "  Origin\n"
        for row in rows {
            out += Self.column(row.verdict.rawValue.uppercased(), 13) + row.cells.map { $0.map { $0 ? "." : "F" } ?? "-" }.joined() + "  "
            if row.members.count == 1 {
                out += ReportEscaping.text(ordered[row.members[0]].name, limit: 300) + "\n"
                continue
            }
            out += "\(ReportEscaping.text(row.origin, limit: 300)) (\(row.members.count) URLs)\n"
            let paths = row.members.map { ReportEscaping.text(Report.path(ofName: ordered[$0].name, under: row.origin), limit: 300) }
            out += Self.wrap(paths, mark: ",", indent: String(repeating: " ", count: 15 + titles.count + 2), width: width)
        }
        let legend = titles.enumerated().map { "\($0.offset + 1) \(ReportEscaping.text($0.element, limit: 200))" }
        out += Self.wrap(legend, mark: ";", first: "Tests:", indent: "       ", width: width, end: ".")
        return out
    }

    /// `items`, each but the last followed by `mark`, space-separated on lines of at most `width`
    /// columns where they fit; every line starts with `indent` (the first with `first` and a
    /// space, when given). An item is never split: a longer one has a line of its own.
    static func wrap(_ items: [String], mark: String, first: String? = nil, indent: String, width: Int, end: String = "") -> String {
        var out = ""
        var line = first.map { $0 + " " } ?? indent
        var lineHasItem = false
        for (index, item) in items.enumerated() {
            let piece = item + (index == items.count - 1 ? end : mark)
            if lineHasItem, line.count + 1 + piece.count > width {
                out += line + "\n"
                line = indent
                lineHasItem = false
            }
            line += (lineHasItem ? " " : "") + piece
            lineHasItem = true
        }
        return out + line + "\n"
    }

    /// Left-aligned in `width` columns; a longer text keeps a space after it.
    static func column(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}

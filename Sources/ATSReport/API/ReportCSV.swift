import ATSPolicy
import TextSupport
import TLSFacts

/// `--format csv`: one row per target, RFC 4180, with stable columns (docs/reports.md): never
/// renamed or reordered; new columns are only appended. A cell that a spreadsheet would run as a
/// formula (= + - @ first) is prefixed with an apostrophe.
public enum ReportCSV {
    /// The fixed columns, then one per nscurl test (`testColumns`).
    package static let columns = ["input", "line", "url", "host", "port", "verdict", "exception_keys", "reason", "server_fix"]

    /// nscurl's tests as column names, in nscurl's order (`NSCurlMatrix.columnNames`, derived
    /// from the one list of tests).
    package static var testColumns: [String] { NSCurlMatrix.columnNames }

    public static func render(_ report: Report) -> String {
        let forecast = ReportForecast.present(report)
        var out = row(columns + testColumns + (forecast ? ReportForecast.csvColumns : []))
        for record in report.records {
            let keys: String = record.exceptionKeys.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            let reasons: [String] = (record.reason.map { [$0] } ?? []) + record.otherReasons
            let fixes: [String] = (record.suggestion?.fixes ?? []).map(\.change)
            let port: String = record.target.map { String($0.port) } ?? ""
            let line: String = record.line.map { String($0) } ?? ""
            var cells: [String] = [record.input ?? "", line, record.target?.url ?? "", record.target?.host ?? "", port]
            cells += [record.verdict.rawValue, keys, reasons.joined(separator: " | "), fixes.joined(separator: " | ")]
            // By title, not by position: a record without a test (written before it was added) has an empty cell.
            cells += Report.passed(record.tests).map { $0.map { $0 ? "PASS" : "FAIL" } ?? "" }
            if forecast { cells += ReportForecast.csvCells(record) }
            out += row(cells)
        }
        return out
    }

    package static func row(_ cells: [String]) -> String {
        cells.map(cell).joined(separator: ",") + "\r\n"
    }

    package static func cell(_ text: String) -> String {
        var value = UntrustedText.escape(text, limit: 4000)
        if let first = value.first, "=+-@".contains(first) { value = "'" + value }
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
        return "\"" + value.replacing("\"", with: "\"\"") + "\""
    }
}

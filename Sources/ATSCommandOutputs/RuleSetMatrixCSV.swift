import ATSReport
/// `diagnose --rules all --format csv`: one row per target and nscurl test, RFC 4180, with
/// stable columns: `url`, `handshakes`, `section`, `test`, then one per rule set (PASS, FAIL,
/// or empty when not run), in the order the run used (releases oldest first, then Apple's
/// documentation), each named "id (releases)". After each target's tests, one row with
/// `section` "Default ATS connection" and `test` "needs" holds, per rule set, what the host
/// needs under it; with `--forecast`, one more with `section` "Forecast" and `test` "forecast"
/// holds each rule set's forecast lines, joined by "; ". Cells are escaped as the audit's CSV (ReportCSV.cell: control characters
/// visible, formula prefixes neutralised, quoting).
package enum RuleSetMatrixCSV {
    package static let columns = ["url", "handshakes", "section", "test"]

    package static func render(_ grids: [RuleSetMatrixGrid]) -> String {
        let ruleSets = grids.first?.ruleSets ?? []
        // Each rule set's column named with the releases it stands for: "ios13 (iOS 13 - 15.3, macOS 10.15 - 12.2)".
        let headers = (grids.first?.columns ?? []).map { "\($0.ruleSet) (\($0.releases ?? $0.header))" }
        var out = ReportCSV.row(columns + headers)
        for grid in grids {
            let lead = [grid.target, String(grid.handshakes)]
            for row in grid.rows {
                let cells = ruleSets.indices.map { column -> String in
                    guard column < row.passed.count, let passed = row.passed[column] else { return "" }
                    return passed ? "PASS" : "FAIL"
                }
                out += ReportCSV.row(lead + [row.section, row.title] + cells)
            }
            out += ReportCSV.row(lead + ["Default ATS connection", "needs"] + grid.needs)
            // --forecast: a row whose cells hold each rule set's forecast lines, joined by "; ".
            if grid.hasForecast {
                out += ReportCSV.row(lead + ["Forecast", "forecast"] + grid.forecasts.map { $0.joined(separator: "; ") })
            }
        }
        return out
    }
}

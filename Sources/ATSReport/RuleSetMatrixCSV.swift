/// `diagnose --rules all --format csv`: one row per target and nscurl test, RFC 4180, with
/// stable columns: `url`, `handshakes`, `section`, `test`, then one per rule set (PASS, FAIL,
/// or empty when not run), in the order the run used. After each target's tests, one row with
/// `section` "Default ATS connection" and `test` "needs" holds, per rule set, what the host
/// needs under it. Cells are escaped as the audit's CSV (ReportCSV.cell: control characters
/// visible, formula prefixes neutralised, quoting).
public enum RuleSetMatrixCSV {
    public static let columns = ["url", "handshakes", "section", "test"]

    public static func render(_ grids: [RuleSetMatrixGrid]) -> String {
        let ruleSets = grids.first?.ruleSets ?? []
        var out = ReportCSV.row(columns + ruleSets)
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
        }
        return out
    }
}

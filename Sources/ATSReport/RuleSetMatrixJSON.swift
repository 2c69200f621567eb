import ATSEngine

/// `diagnose --rules all --json` (docs/json-schema.md): the grid, and each rule set's whole
/// diagnostics document as `diagnose --json` writes it.
public struct RuleSetMatrixJSON: Encodable, Sendable {
    public let schemaVersion = jsonSchemaVersion
    public let target: String
    public let ruleSets: [String]
    public let handshakes: Int
    public let defaultPassesOn: [String]
    public let defaultFailsOn: [String]
    public let tests: [Row]
    public let reports: [DiagnosticsJSON]

    public struct Row: Encodable, Sendable {
        public let section: String
        public let title: String
        /// Rule set id -> "PASS" or "FAIL".
        public let results: [String: String]
    }

    public init(_ matrix: RuleSetMatrix, run: RunInfo) {
        let grid = RuleSetMatrixGrid(matrix)
        target = grid.target
        ruleSets = grid.ruleSets
        handshakes = grid.handshakes
        defaultPassesOn = grid.defaultPassesOn
        defaultFailsOn = grid.defaultFailsOn
        tests = grid.rows.map { row in
            var results: [String: String] = [:]
            for (id, passed) in zip(grid.ruleSets, row.passed) {
                if let passed { results[id] = passed ? "PASS" : "FAIL" }
            }
            return Row(section: row.section, title: row.title, results: results)
        }
        reports = matrix.reports.map { report in
            var info = run
            info.ruleSet = report.ruleSet.id
            return DiagnosticsJSON(report, run: info)
        }
    }
}

import ATSReport
import ATSPolicy
import ATSEngine

/// `diagnose --rules all --json` (docs/json-schema.md): the grid, and each rule set's whole
/// diagnostics document as `diagnose --json` writes it.
public struct RuleSetMatrixJSON: Encodable, Sendable {
    public let schemaVersion = jsonSchemaVersion
    public let target: String
    public let ruleSets: [String]
    /// One per rule set, in `ruleSets` order (releases oldest first, then Apple's documentation):
    /// the releases each stands for, declared with the rule set (`RuleSet.releases`).
    public let columns: [Column]
    /// The default connection by release, Apple's documentation apart (`RuleSetMatrixGrid.defaultSummary`).
    public let defaultSummary: String
    public let handshakes: Int
    public let defaultPassesOn: [String]
    public let defaultFailsOn: [String]
    public let tests: [Row]
    public let reports: [DiagnosticsJSON]

    public struct Column: Encodable, Sendable {
        public let ruleSet: String
        /// "iOS 13 - 15.3, macOS 10.15 - 12.2"; absent for Apple's documentation.
        public let releases: String?
        /// First and last release ("15.3"); a last absent means "and later". Absent for the documentation.
        public let iOSFirst: String?
        public let iOSLast: String?
        public let macOSFirst: String?
        public let macOSLast: String?
        /// True for Apple's documentation (`documented`), which is no release.
        public let documentation: Bool

        init(_ id: String) {
            ruleSet = id
            let range = RuleSet.named(id)?.releases
            releases = range?.text
            iOSFirst = range.map { "\($0.iOSFirst)" }
            iOSLast = range?.iOSLast.map { "\($0)" }
            macOSFirst = range.map { "\($0.macOSFirst)" }
            macOSLast = range?.macOSLast.map { "\($0)" }
            documentation = range == nil
        }
    }

    public struct Row: Encodable, Sendable {
        public let section: String
        public let title: String
        /// Rule set id -> "PASS" or "FAIL".
        public let results: [String: String]
    }

    public init(_ matrix: RuleSetMatrix, run: RunInfo) {
        self.init(RuleSetMatrixGrid(matrix), reports: matrix.reports.map { report in
            var info = run
            info.ruleSet = report.ruleSet.id
            return DiagnosticsJSON(report, run: info)
        })
    }

    /// The grid's part, with each rule set's document (for goldens without a network: none).
    public init(_ grid: RuleSetMatrixGrid, reports: [DiagnosticsJSON]) {
        target = grid.target
        ruleSets = grid.ruleSets
        columns = grid.ruleSets.map(Column.init)
        defaultSummary = grid.defaultSummary
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
        self.reports = reports
    }
}

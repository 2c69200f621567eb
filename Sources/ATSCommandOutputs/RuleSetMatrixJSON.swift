import ATSReport
import ATSPolicy

/// `diagnose --rules all --json` (docs/json-schema.md): the grid, and each rule set's whole
/// diagnostics document as `diagnose --json` writes it.
package struct RuleSetMatrixJSON: Encodable, Sendable {
    package let schemaVersion = jsonSchemaVersion
    package let target: String
    package let ruleSets: [String]
    /// One per rule set, in `ruleSets` order (releases oldest first, then Apple's documentation):
    /// the releases each stands for, declared with the rule set (`RuleSet.releases`).
    package let columns: [Column]
    /// The default connection by release, Apple's documentation apart (`RuleSetMatrixGrid.defaultSummary`).
    package let defaultSummary: String
    package let handshakes: Int
    package let defaultPassesOn: [String]
    package let defaultFailsOn: [String]
    package let tests: [Row]
    package let reports: [DiagnosticsJSON]

    package struct Column: Encodable, Sendable {
        package let ruleSet: String
        /// "iOS 13 - 15.3, macOS 10.15 - 12.2"; absent for Apple's documentation.
        package let releases: String?
        /// First and last release ("15.3"); a last absent means "and later". Absent for the documentation.
        package let iOSFirst: String?
        package let iOSLast: String?
        package let macOSFirst: String?
        package let macOSLast: String?
        /// True for Apple's documentation (`documented`), which is no release.
        package let documentation: Bool

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

    package struct Row: Encodable, Sendable {
        package let section: String
        package let title: String
        /// Rule set id -> "PASS" or "FAIL".
        package let results: [String: String]
    }

    /// The grid's part, with each rule set's document (`RuleSetMatrixDocument.reports`; for goldens
    /// without a network, none).
    package init(_ grid: RuleSetMatrixGrid, reports: [DiagnosticsJSON]) {
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

import ATSAdvice
import ATSEngine
import ATSPolicy
import PropertyList
import TextSupport
import TLSFacts

/// `diagnose --rules all` for one target as the renderers read it: nscurl's tests down, rule
/// sets across, each cell PASS or FAIL, and what the host needs under each rule set. Built
/// from the engine's `RuleSetMatrix`; every string in it is untrusted (the target as typed, a
/// reason from the network) and escaped by each renderer for its sink (ReportEscaping).
public struct RuleSetMatrixGrid: Sendable, Equatable {
    public struct Row: Sendable, Equatable {
        public var section: String
        public var title: String
        /// One per rule set, in `ruleSets` order: true PASS, false FAIL, nil not run.
        public var passed: [Bool?]

        public init(section: String, title: String, passed: [Bool?]) {
            self.section = section
            self.title = title
            self.passed = passed
        }
    }

    public var target: String
    /// Rule set ids, in the order the runs were asked for.
    public var ruleSets: [String]
    /// Real handshakes made for all the rule sets together.
    public var handshakes: Int
    public var rows: [Row]
    public var defaultPassesOn: [String]
    public var defaultFailsOn: [String]
    /// One line per rule set, in `ruleSets` order: what the host needs under it, its values
    /// already escaped as plain text (UntrustedText); each renderer escapes it for its sink too
    /// (the escape is idempotent).
    public var needs: [String]

    public init(target: String, ruleSets: [String], handshakes: Int, rows: [Row], defaultPassesOn: [String],
                defaultFailsOn: [String], needs: [String]) {
        self.target = target
        self.ruleSets = ruleSets
        self.handshakes = handshakes
        self.rows = rows
        self.defaultPassesOn = defaultPassesOn
        self.defaultFailsOn = defaultFailsOn
        self.needs = needs
    }

    public init(_ matrix: RuleSetMatrix) {
        target = matrix.target.url
        ruleSets = matrix.reports.map(\.ruleSet.id)
        handshakes = matrix.handshakes
        rows = (matrix.reports.first?.tests ?? []).enumerated().map { row, test in
            Row(section: test.section, title: test.title,
                passed: matrix.reports.map { row < $0.tests.count ? $0.tests[row].verdict.passed : nil })
        }
        defaultPassesOn = matrix.defaultPassesOn
        defaultFailsOn = matrix.defaultFailsOn
        needs = matrix.reports.map { RuleSetMatrixGrid.needs($0.suggestion) }
    }

    /// "passes on every rule set (...)", "fails on every rule set (...)" or "passes on A; fails on B".
    public var defaultSummary: String {
        let passes = defaultPassesOn, fails = defaultFailsOn
        return fails.isEmpty ? "passes on every rule set (\(passes.joined(separator: ", ")))"
            : passes.isEmpty ? "fails on every rule set (\(fails.joined(separator: ", ")))"
            : "passes on \(passes.joined(separator: ", ")); fails on \(fails.joined(separator: ", "))"
    }

    /// One line on what the host needs under a rule set: each value cut at 40 characters and
    /// a reason at 300, escaped.
    public static func needs(_ suggestion: ExceptionSuggestion) -> String {
        switch suggestion {
        case .none: return "no exception needed"
        case .exception(_, let exception, _):
            let keys = exception.propertyList.sorted { $0.key < $1.key }.filter { $0.key != ATSKey.includesSubdomains.name }
            return "needs " + keys.map { "\($0.key) = \(UntrustedText.escape($0.value.scalarText, limit: 40))" }.joined(separator: ", ")
        case .impossible(let reason): return "no exception helps: \(UntrustedText.escape(reason, limit: 300))"
        }
    }
}

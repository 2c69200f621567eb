import ATSReport
import ATSAdvice
import ATSContract
import ATSPolicy
import PropertyList
import TextSupport
import TLSFacts

/// `diagnose --rules all` for one target as the renderers read it: nscurl's tests down, rule
/// sets across, each cell PASS or FAIL, and what the host needs under each rule set. Built
/// from each rule set's diagnostics document (`RuleSetMatrixDocument`); every string in it is untrusted (the target as typed, a
/// reason from the network) and escaped by each renderer for its sink (ReportEscaping).
package struct RuleSetMatrixGrid: Sendable, Equatable {
    package struct Row: Sendable, Equatable {
        package var section: String
        package var title: String
        /// One per rule set, in `ruleSets` order: true PASS, false FAIL, nil not run.
        package var passed: [Bool?]

        package init(section: String, title: String, passed: [Bool?]) {
            self.section = section
            self.title = title
            self.passed = passed
        }
    }

    /// One column: a rule set and the releases it stands for (`RuleSet.releases`), declared with
    /// the rule set; Apple's documentation has none and is shown apart, after the releases.
    package struct Column: Sendable, Equatable {
        package var ruleSet: String
        /// "iOS 13 - 15.3, macOS 10.15 - 12.2"; nil for Apple's documentation.
        package var releases: String?
        /// The header under the id: "iOS 13 - 15.3", or "Apple's documentation".
        package var header: String

        package init(_ ruleSet: String) {
            self.ruleSet = ruleSet
            let set = RuleSet.named(ruleSet)
            releases = set?.releases?.text
            header = set?.releasesText ?? ruleSet
        }

        package var isRelease: Bool { releases != nil }
        /// "iOS 13 - 15.3 (ios13)", "Apple's documentation (documented)".
        package var name: String { "\(header) (\(ruleSet))" }
    }

    package var target: String
    /// Rule set ids, in the order the runs were asked for (`RuleSet.inReleaseOrder`: releases
    /// oldest first, then Apple's documentation).
    package var ruleSets: [String]
    /// One per rule set, in `ruleSets` order.
    package var columns: [Column] { ruleSets.map(Column.init) }
    /// Real handshakes made for all the rule sets together.
    package var handshakes: Int
    package var rows: [Row]
    package var defaultPassesOn: [String]
    package var defaultFailsOn: [String]
    /// One line per rule set, in `ruleSets` order: what the host needs under it, its values
    /// already escaped as plain text (UntrustedText); each renderer escapes it for its sink too
    /// (the escape is idempotent).
    package var needs: [String]
    /// `--forecast`: one list per rule set, in `ruleSets` order, of its forecast's lines as every
    /// report words them (`ForecastText.lines`: each change of that rule set's verdict, then the
    /// renewal), unescaped; empty lists when the run made no forecast.
    package var forecasts: [[String]]

    package init(target: String, ruleSets: [String], handshakes: Int, rows: [Row], defaultPassesOn: [String],
                defaultFailsOn: [String], needs: [String], forecasts: [[String]] = []) {
        self.target = target
        self.ruleSets = ruleSets
        self.handshakes = handshakes
        self.rows = rows
        self.defaultPassesOn = defaultPassesOn
        self.defaultFailsOn = defaultFailsOn
        self.needs = needs
        self.forecasts = forecasts
    }

    package init(_ matrix: RuleSetMatrixDocument) {
        target = matrix.target
        ruleSets = matrix.reports.map(\.ruleSet)
        handshakes = matrix.handshakes
        // Each rule set's result for a test found by its title (one per role, `DiagnosticRole.title`),
        // never by its place in the list.
        rows = (matrix.reports.first?.tests ?? []).map { test in
            Row(section: test.section, title: test.title,
                passed: matrix.reports.map { report in report.tests.first { $0.title == test.title }?.verdict.passed })
        }
        defaultPassesOn = matrix.reports.filter(\.defaultPasses).map(\.ruleSet)
        defaultFailsOn = matrix.reports.filter { !$0.defaultPasses }.map(\.ruleSet)
        needs = matrix.reports.map { RuleSetMatrixGrid.needs($0.suggestion.suggestion) }
        forecasts = matrix.reports.map { ForecastText.lines(window: $0.forecastWindow, changes: $0.forecast, renewal: $0.renewal) }
    }

    /// Whether any rule set carries a forecast (`--forecast`).
    package var hasForecast: Bool { forecasts.contains { !$0.isEmpty } }

    /// The default connection by release: "passes on iOS 13 - 15.3 (ios13); fails on iOS 15.4 - 16
    /// (ios15.4), iOS 26 and later (ios26)", then Apple's documentation apart: "Apple's
    /// documentation (documented): passes".
    package var defaultSummary: String {
        let passes = Set(defaultPassesOn)
        let releases = columns.filter(\.isRelease)
        let passing = releases.filter { passes.contains($0.ruleSet) }.map(\.name)
        let failing = releases.filter { !passes.contains($0.ruleSet) }.map(\.name)
        var parts: [String] = []
        if !releases.isEmpty {
            parts.append(failing.isEmpty ? "passes on every release: \(passing.joined(separator: ", "))"
                : passing.isEmpty ? "fails on every release: \(failing.joined(separator: ", "))"
                : "passes on \(passing.joined(separator: ", ")); fails on \(failing.joined(separator: ", "))")
        }
        for column in columns where !column.isRelease {
            parts.append("\(column.name): \(passes.contains(column.ruleSet) ? "passes" : "fails")")
        }
        return parts.joined(separator: "; ")
    }

    /// One line on what the host needs under a rule set, escaped; a reason longer than 300
    /// characters is cut at a word boundary (never mid-word), with "…".
    package static func needs(_ suggestion: ExceptionSuggestion) -> String {
        switch suggestion {
        case .none: return "no exception needed"
        case .exception(_, let exception, _):
            let keys = exception.propertyList.sorted { $0.key < $1.key }.filter { $0.key != ATSKey.includesSubdomains.name }
            return "needs " + keys.map { "\($0.key) = \(UntrustedText.escape($0.value.scalarText, limit: 200))" }.joined(separator: ", ")
        case .impossible(let reason): return "no exception helps: \(clipped(UntrustedText.escape(reason, limit: 4000), limit: 300))"
        }
    }

    /// `text` when it has at most `limit` characters; else cut after the last whole word that
    /// fits, with "…".
    package static func clipped(_ text: String, limit: Int) -> String {
        guard text.count > limit else { return text }
        let head = text.prefix(limit)
        let cut = head.lastIndex(of: " ").map { head[..<$0] } ?? head
        return cut.trimmingSuffix(while: { $0 == " " || $0 == "," || $0 == ";" }) + "…"
    }
}

private extension Substring {
    func trimmingSuffix(while drop: (Character) -> Bool) -> String {
        var end = endIndex
        while end > startIndex, drop(self[index(before: end)]) { end = index(before: end) }
        return String(self[startIndex..<end])
    }
}

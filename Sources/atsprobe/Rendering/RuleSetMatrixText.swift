import ATSAdvice
import ATSEngine
import ATSPolicy
import ATSReport
import PropertyList
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport
import TLSFacts

/// `diagnose --rules all`: one grid per target, nscurl's tests down, rule sets across, so a
/// developer sees "passes on ios26, fails on ios16" at a glance. Additive beside the per-rule-set
/// renderers (DiagnosticsText, DiagnosticsJSON), which it does not change.
enum RuleSetMatrixText {
    static func render(_ matrix: RuleSetMatrix, palette: Palette) -> String {
        let ids = matrix.reports.map(\.ruleSet.id)
        let titleWidth = max(44, (matrix.reports.first?.tests ?? []).map { $0.title.count + 4 }.max() ?? 0)
        let widths = ids.map { max($0.count, 4) + 2 }
        var out = "\(UntrustedText.escape(matrix.target.url, limit: 300)): nscurl's tests under \(ids.count) rule sets, "
            + "\(matrix.handshakes) handshake\(matrix.handshakes == 1 ? "" : "s")\n"
        // The last column is not padded, so no line ends in spaces.
        out += "".padded(to: titleWidth)
            + zip(ids, widths).enumerated().map { $0.offset == ids.count - 1 ? $0.element.0 : $0.element.0.padded(to: $0.element.1) }.joined() + "\n"
        var section = ""
        for (row, test) in (matrix.reports.first?.tests ?? []).enumerated() {
            if test.section != section {
                section = test.section
                out += section + "\n"
            }
            out += ("  " + test.title).padded(to: titleWidth)
            for (column, (report, width)) in zip(matrix.reports, widths).enumerated() {
                let passed = row < report.tests.count && report.tests[row].verdict.passed
                let word = passed ? "PASS" : "FAIL"
                out += passed ? palette.pass(word) : palette.fail(word)
                if column < ids.count - 1 { out += "".padded(to: width - word.count) }
            }
            out += "\n"
        }
        let passes = matrix.defaultPassesOn, fails = matrix.defaultFailsOn
        out += "\nDefault ATS connection: "
            + (fails.isEmpty ? "passes on every rule set (\(passes.joined(separator: ", ")))"
               : passes.isEmpty ? "fails on every rule set (\(fails.joined(separator: ", ")))"
               : "passes on \(passes.joined(separator: ", ")); fails on \(fails.joined(separator: ", "))") + "\n"
        for report in matrix.reports {
            out += "  \(report.ruleSet.id): \(needs(report.suggestion))\n"
        }
        return out
    }

    /// One line on what the host needs under a rule set.
    static func needs(_ suggestion: ExceptionSuggestion) -> String {
        switch suggestion {
        case .none: return "no exception needed"
        case .exception(_, let exception, _):
            let keys = exception.propertyList.sorted { $0.key < $1.key }.filter { $0.key != ATSKey.includesSubdomains.name }
            return "needs " + keys.map { "\($0.key) = \(UntrustedText.escape($0.value.scalarText, limit: 40))" }.joined(separator: ", ")
        case .impossible(let reason): return "no exception helps: \(UntrustedText.escape(reason, limit: 300))"
        }
    }

    /// The highest exit status over the rule sets (0 when the default passes under every one).
    static func exitStatus(_ matrix: RuleSetMatrix) -> ExitStatus {
        matrix.reports.map(DiagnosticsText.exitStatus(for:)).max() ?? .clear
    }
}

/// `diagnose --rules all --json` (docs/json-schema.md): the grid, and each rule set's whole
/// diagnostics document as `diagnose --json` writes it.
struct RuleSetMatrixJSON: Encodable {
    let schemaVersion = jsonSchemaVersion
    let target: String
    let ruleSets: [String]
    let handshakes: Int
    let defaultPassesOn: [String]
    let defaultFailsOn: [String]
    let tests: [Row]
    let reports: [DiagnosticsJSON]

    struct Row: Encodable {
        let section: String
        let title: String
        /// Rule set id -> "PASS" or "FAIL".
        let results: [String: String]
    }

    init(_ matrix: RuleSetMatrix, run: RunInfo) {
        target = matrix.target.url
        ruleSets = matrix.reports.map(\.ruleSet.id)
        handshakes = matrix.handshakes
        defaultPassesOn = matrix.defaultPassesOn
        defaultFailsOn = matrix.defaultFailsOn
        tests = (matrix.reports.first?.tests ?? []).enumerated().map { row, test in
            var results: [String: String] = [:]
            for report in matrix.reports where row < report.tests.count {
                results[report.ruleSet.id] = report.tests[row].verdict.passed ? "PASS" : "FAIL"
            }
            return Row(section: test.section, title: test.title, results: results)
        }
        reports = matrix.reports.map { report in
            var info = run
            info.ruleSet = report.ruleSet.id
            return DiagnosticsJSON(report, run: info)
        }
    }
}

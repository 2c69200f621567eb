import ATSAdvice

/// One finding per line (severity, key path, message, fix), then a count by severity.
package enum PlistLintText {
    package static func render(_ findings: [LintFinding], count withCount: Bool = true) -> String {
        let width = LintFinding.Severity.allCases.map(\.rawValue.count).max() ?? 0
        var out = ""
        for finding in findings {
            let severity = finding.severity.rawValue.padded(to: width)
            out += "\(severity)  \(finding.keyPath): \(finding.message) [\(finding.rule)] (fix: \(finding.fix))\n"
        }
        if withCount { out += count(findings) + "\n" }
        return out
    }

    /// "2 errors, 1 warning, 0 info" (most severe first).
    package static func count(_ findings: [LintFinding]) -> String {
        LintFinding.Severity.allCases.sorted(by: >).map { severity in
            let n = findings.filter { $0.severity == severity }.count
            let noun = severity == .info ? "info" : severity.rawValue + (n == 1 ? "" : "s")
            return "\(n) \(noun)"
        }.joined(separator: ", ")
    }
}

/// The lowest severity that makes `plist lint` exit 1.
package enum LintFailOn: String, CaseIterable, Sendable {
    case error, warning, info, never

    package func fails(_ findings: [LintFinding]) -> Bool {
        let threshold: LintFinding.Severity
        switch self {
        case .error: threshold = .error
        case .warning: threshold = .warning
        case .info: threshold = .info
        case .never: return false
        }
        return findings.contains { $0.severity >= threshold }
    }
}

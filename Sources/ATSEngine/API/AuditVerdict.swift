import ATSContract
import ATSPolicy

/// A target's verdict (ATSContract's `AuditVerdict`) from a live run's report, by the contract's
/// one derivation, and the exit status each verdict asks for.
extension AuditVerdict {
    public init(_ report: DiagnosticsReport) {
        self.init(defaultPasses: report.defaultPasses, reachability: report.reachability, suggestion: report.suggestion)
    }

    /// The exit status this verdict asks for, before --fail-on filters it.
    public var severity: AuditSeverity {
        switch self {
        case .pass: .clear
        case .exception, .noException: .findings
        case .unreachable, .timeout: .unreachable
        case .error: .badInput
        }
    }
}

extension DiagnosticsReport {
    /// The audit's verdict for one report as an outcome: clear when default ATS passes,
    /// unreachable when nothing spoke TLS, else findings.
    package var severity: AuditSeverity { AuditVerdict(self).severity }
}

/// How an audit ended, worst last: the executable maps each to its exit code (0, 1, 2, 64, 70;
/// docs/exit-codes.md).
public enum AuditSeverity: Int, Comparable, Sendable {
    case clear, findings, unreachable, badInput, localFailure

    public static func < (lhs: AuditSeverity, rhs: AuditSeverity) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// `--fail-on`: which verdicts make the run fail.
package enum AuditFailOn: String, CaseIterable, Sendable {
    /// Nothing fails the run (exit 0 unless the options themselves are wrong).
    case none
    /// Only unreachable or timed-out targets (exit 2), and bad lines (64).
    case unreachable
    /// Only targets that need an exception or cannot load (exit 1), and bad lines (64).
    case exception
    /// Everything: the highest of 64, 2, 1, 0 (the default, as for every other command).
    case any

    package func filter(_ severity: AuditSeverity) -> AuditSeverity {
        switch (self, severity) {
        case (.none, _): .clear
        case (.unreachable, .findings): .clear
        case (.exception, .unreachable): .clear
        default: severity
        }
    }
}

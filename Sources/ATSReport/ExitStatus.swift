import ATSContract

/// atsprobe's exit codes (docs/exit-codes.md). When several targets disagree the highest of
/// 2, 1, 0 wins; 64 and 70 stop the run.
package enum ExitStatus: Int32, Comparable, Sendable {
    /// Every target passes default ATS; no findings.
    case clear = 0
    /// Findings: a target needs an exception, a trust problem, a lint finding.
    case findings = 1
    /// A target could not be reached or spoke no TLS at all.
    case unreachable = 2
    /// Usage error or bad input.
    case usage = 64
    /// A bug, or this machine ran out of resources (TargetRunError).
    case internalError = 70
    /// `audit` stopped by SIGINT (128 + 2, the shell's convention); the output holds every
    /// target finished before it, each record whole.
    case interrupted = 130
    /// `audit` stopped by SIGTERM (128 + 15), likewise.
    case terminated = 143

    package static func < (lhs: ExitStatus, rhs: ExitStatus) -> Bool { lhs.rawValue < rhs.rawValue }

    /// An audit's outcome as its exit code (docs/exit-codes.md).
    package init(_ severity: AuditSeverity) {
        switch severity {
        case .clear: self = .clear
        case .findings: self = .findings
        case .unreachable: self = .unreachable
        case .badInput: self = .usage
        case .localFailure: self = .internalError
        }
    }
}

import ATSContract
import ATSPolicy

/// A target's verdict (ATSContract's `AuditVerdict`) from a live run's report, by the contract's
/// one derivation (the exit status each verdict asks for is the contract's, AuditTally.swift).
extension AuditVerdict {
    public init(_ report: DiagnosticsReport) {
        self.init(defaultPasses: report.defaultPasses, reachability: report.reachability, suggestion: report.suggestion)
    }
}

extension DiagnosticsReport {
    /// The audit's verdict for one report as an outcome: clear when default ATS passes,
    /// unreachable when nothing spoke TLS, else findings.
    package var severity: AuditSeverity { AuditVerdict(self).severity }
}

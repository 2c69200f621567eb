import ATSContract

/// The audit's tally in words: the progress line, the report's "Targets" row, the closing summary.
extension AuditTally {
    /// "7 targets: 3 pass, 2 exception, 1 unreachable, 1 error"
    package var line: String {
        let parts = AuditVerdict.allCases.compactMap { verdict in
            count(verdict) > 0 ? "\(count(verdict)) \(verdict.rawValue)" : nil
        }
        return "\(finished) target\(finished == 1 ? "" : "s")" + (parts.isEmpty ? "" : ": " + parts.joined(separator: ", "))
    }

    /// The closing summary for stderr.
    package var summary: String { summary(command: "audit") }

    /// The closing summary for stderr, naming the command that wrote it (`report` names itself).
    package func summary(command: String) -> String {
        var out = "atsprobe \(command): \(line)\n"
        if !exceptionKeys.isEmpty {
            out += "exceptions needed:\n"
            for (key, count) in keysByCount {
                out += "  \(ReportEscaping.text(key)): \(count) target\(count == 1 ? "" : "s")\n"
            }
        }
        return out
    }
}

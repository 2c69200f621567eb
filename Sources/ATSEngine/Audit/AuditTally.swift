import ATSPolicy
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The run's counters: all the audit keeps of the targets it has finished, so memory stays flat.
struct AuditTally {
    private(set) var byVerdict: [AuditVerdict: Int] = [:]
    /// How many targets need each exception key (NSExceptionMinimumTLSVersion, ...).
    private(set) var exceptionKeys: [String: Int] = [:]

    /// Targets this machine could not audit (AuditOutput.failedLocally): exit 70.
    var localFailures = 0

    var finished: Int { byVerdict.values.reduce(0, +) }

    mutating func add(_ verdict: AuditVerdict, exception: DomainException? = nil) {
        add(verdict, keys: exception.map { Array($0.propertyList.keys) } ?? [])
    }

    mutating func add(_ verdict: AuditVerdict, keys: [String]) {
        byVerdict[verdict, default: 0] += 1
        for key in keys { exceptionKeys[key, default: 0] += 1 }
    }

    /// Exception keys by how many targets need them, most first.
    var keysByCount: [(key: String, count: Int)] {
        exceptionKeys.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { ($0.key, $0.value) }
    }

    func count(_ verdict: AuditVerdict) -> Int { byVerdict[verdict, default: 0] }

    /// The exit status: the highest any verdict asks for, after --fail-on.
    func status(failOn: AuditFailOn) -> ExitStatus {
        if localFailures > 0 { return .internalError }
        return byVerdict.keys.map { failOn.filter($0.status) }.max() ?? .clear
    }

    /// "7 targets: 3 pass, 2 exception, 1 unreachable, 1 error"
    var line: String {
        let parts = AuditVerdict.allCases.compactMap { verdict in
            count(verdict) > 0 ? "\(count(verdict)) \(verdict.rawValue)" : nil
        }
        return "\(finished) target\(finished == 1 ? "" : "s")" + (parts.isEmpty ? "" : ": " + parts.joined(separator: ", "))
    }

    /// The closing summary for stderr.
    var summary: String {
        var out = "atsprobe audit: \(line)\n"
        if !exceptionKeys.isEmpty {
            out += "exceptions needed:\n"
            for (key, count) in keysByCount {
                out += "  \(key): \(count) target\(count == 1 ? "" : "s")\n"
            }
        }
        return out
    }
}

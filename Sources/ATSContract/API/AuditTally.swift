import ATSPolicy
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The run's counters: all the audit keeps of the targets it has finished, so memory stays flat.
public struct AuditTally: Sendable {
    public private(set) var byVerdict: [AuditVerdict: Int] = [:]
    /// How many targets need each exception key (NSExceptionMinimumTLSVersion, ...).
    public private(set) var exceptionKeys: [String: Int] = [:]

    /// Targets this machine could not audit (`AuditEvent.failedLocally`): exit 70.
    public var localFailures = 0

    public init() {}

    public var finished: Int { byVerdict.values.reduce(0, +) }

    public mutating func add(_ verdict: AuditVerdict, exception: DomainException? = nil) {
        add(verdict, keys: exception.map { Array($0.propertyList.keys) } ?? [])
    }

    public mutating func add(_ verdict: AuditVerdict, keys: [String]) {
        byVerdict[verdict, default: 0] += 1
        for key in keys { exceptionKeys[key, default: 0] += 1 }
    }

    /// Exception keys by how many targets need them, most first.
    public var keysByCount: [(key: String, count: Int)] {
        exceptionKeys.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { ($0.key, $0.value) }
    }

    public func count(_ verdict: AuditVerdict) -> Int { byVerdict[verdict, default: 0] }

    /// The run's outcome for the exit status: the worst any verdict asks for, after --fail-on.
    package func severity(failOn: AuditFailOn) -> AuditSeverity {
        if localFailures > 0 { return .localFailure }
        return byVerdict.keys.map { failOn.filter($0.severity) }.max() ?? .clear
    }
}

extension AuditVerdict {
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

/// How an audit ended, worst last: the executable maps each to its exit code (0, 1, 2, 64, 70;
/// docs/exit-codes.md).
public enum AuditSeverity: Int, Comparable, Sendable {
    case clear, findings, unreachable, badInput, localFailure

    public static func < (lhs: AuditSeverity, rhs: AuditSeverity) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// `--fail-on`: which verdicts make the run fail.
public enum AuditFailOn: String, CaseIterable, Sendable {
    /// Nothing fails the run (exit 0 unless the options themselves are wrong).
    case none
    /// Only unreachable or timed-out targets (exit 2), and bad lines (64).
    case unreachable
    /// Only targets that need an exception or cannot load (exit 1), and bad lines (64).
    case exception
    /// Everything: the highest of 64, 2, 1, 0 (the default, as for every other command).
    case any

    public func filter(_ severity: AuditSeverity) -> AuditSeverity {
        switch (self, severity) {
        case (.none, _): .clear
        case (.unreachable, .findings): .clear
        case (.exception, .unreachable): .clear
        default: severity
        }
    }
}

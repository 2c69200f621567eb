import ArgumentParser
import ATSEngine
import ATSFiles
import ATSReport

/// `audit --fail-on`: the engine's levels (none, unreachable, exception, any), and `new`, which
/// with `--baseline` fails the run only on what got worse since the baseline (docs/audit.md).
enum AuditFailOnChoice: ExpressibleByArgument, Sendable, Equatable {
    case level(AuditFailOn)
    case new

    init?(argument: String) {
        if argument.lowercased() == "new" { self = .new; return }
        guard let level = AuditFailOn(rawValue: argument.lowercased()) else { return nil }
        self = .level(level)
    }

    var defaultValueDescription: String {
        switch self {
        case .level(let level): level.rawValue
        case .new: "new"
        }
    }

    static var allValueStrings: [String] { AuditFailOn.allCases.map(\.rawValue) + ["new"] }
    static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }
}

/// `audit --baseline OLD.jsonl`: the earlier run's records, read before any connection (bad
/// input is exit 64 at once), and the comparison once the run is done.
struct AuditBaseline {
    let path: String
    let records: [AuditRecord]

    /// nil without --baseline; `--fail-on new` needs one.
    static func read(_ path: String?, failOn: AuditFailOnChoice) throws -> AuditBaseline? {
        guard let path else {
            if failOn == .new { throw InputError("--fail-on new compares with an earlier run: give it with --baseline OLD.jsonl") }
            return nil
        }
        return AuditBaseline(path: path, records: try RunRecords.read([path]))
    }

    /// The exit status: with `new`, 1 when a target got worse and 0 otherwise (a local failure
    /// is still 70); any other level as without a baseline.
    static func status(_ failOn: AuditFailOnChoice, tally: AuditTally, comparison: BaselineComparison?) -> ExitStatus {
        switch failOn {
        case .level(let level): return ExitStatus(tally.severity(failOn: level))
        case .new:
            if tally.localFailures > 0 { return ExitStatus(tally.severity(failOn: .any)) }
            // A bad input line is 64 with or without a baseline (docs/exit-codes.md).
            if tally.count(.error) > 0 { return .usage }
            return comparison?.worse.isEmpty == false ? .findings : .clear
        }
    }
}

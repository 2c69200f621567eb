import ArgumentParser
import ATSEngine
import ATSFiles
import ATSReport

/// `audit --fail-on`: the engine's levels (none, unreachable, exception, any), and `new`, which
/// with `--baseline` fails the run only on what got worse since the baseline (docs/audit.md).
enum AuditFailOnChoice: ExpressibleByArgument, Sendable, Equatable {
    case level(AuditFailOn)
    case new
    /// `expiring:DURATION`: as `any`, and 1 also when a target's forecast gets worse within DURATION
    /// (docs/forecast.md); forecasts at least that far ahead.
    case expiring(seconds: Int)

    init?(argument: String) {
        if argument.lowercased() == "new" { self = .new; return }
        if argument.lowercased().hasPrefix("expiring:") {
            guard let seconds = try? ForecastOptions.seconds(String(argument.dropFirst("expiring:".count)), option: "--fail-on") else { return nil }
            self = .expiring(seconds: seconds)
            return
        }
        guard let level = AuditFailOn(rawValue: argument.lowercased()) else { return nil }
        self = .level(level)
    }

    var defaultValueDescription: String {
        switch self {
        case .level(let level): level.rawValue
        case .new: "new"
        case .expiring(let seconds): "expiring:\(seconds)s"
        }
    }

    /// The horizon `expiring:DURATION` needs forecast.
    var expiringSeconds: Int? {
        if case .expiring(let seconds) = self { return seconds }
        return nil
    }

    static var allValueStrings: [String] { AuditFailOn.allCases.map(\.rawValue) + ["new", "expiring:DURATION"] }
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
    static func status(_ failOn: AuditFailOnChoice, tally: AuditTally, comparison: BaselineComparison?,
                       soonestWorsening: Int? = nil) -> ExitStatus {
        switch failOn {
        case .level(let level): return ExitStatus(tally.severity(failOn: level))
        case .expiring(let seconds):
            let now = ExitStatus(tally.severity(failOn: .any))
            return soonestWorsening.map { $0 <= seconds } == true ? max(now, .findings) : now
        case .new:
            if tally.localFailures > 0 { return ExitStatus(tally.severity(failOn: .any)) }
            // A bad input line is 64 with or without a baseline (docs/exit-codes.md).
            if tally.count(.error) > 0 { return .usage }
            return comparison?.worse.isEmpty == false ? .findings : .clear
        }
    }
}

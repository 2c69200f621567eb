import ArgumentParser
import ATSEngine
import ATSFiles
import ATSCommandOutputs
import ATSReport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport

/// `--fail-on` (audit, report, report --diff): the engine's levels (none, unreachable,
/// exception, any); `new`, which with a baseline fails only on what got worse (docs/audit.md);
/// `absent`, as `new` and also when a baseline target is no longer audited (removed or
/// commented out of the input); `expiring:DURATION`, as `any` (with a baseline: as `new`) and
/// also when a target's forecast loads worse within DURATION.
enum AuditFailOnChoice: ExpressibleByArgument, Sendable, Equatable {
    case level(AuditFailOn)
    case new
    case absent
    /// `expiring:DURATION`: 1 also when a target's forecast gets worse within DURATION
    /// (docs/forecast.md); forecasts at least that far ahead.
    case expiring(seconds: Int)

    init?(argument: String) {
        if argument.lowercased() == "new" { self = .new; return }
        if argument.lowercased() == "absent" { self = .absent; return }
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
        case .absent: "absent"
        case .expiring(let seconds): "expiring:\(seconds)s"
        }
    }

    /// The horizon `expiring:DURATION` needs forecast.
    var expiringSeconds: Int? {
        if case .expiring(let seconds) = self { return seconds }
        return nil
    }

    /// Whether the choice compares with a baseline (new, absent).
    var needsBaseline: Bool { self == .new || self == .absent }

    static var allValueStrings: [String] { AuditFailOn.allCases.map(\.rawValue) + ["new", "absent", "expiring:DURATION"] }
    static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }
}

/// A baseline as the comparison reads it (`RunRecords.sides`, streamed; a compact baseline
/// too), checked against this run before anything is compared: `audit --baseline` and
/// `report --diff` read it the one way.
enum BaselineReading {
    /// `path`'s sides and run. A missing file is one line naming the command that records it
    /// with `run`'s options (docs/ci.md's first step); any other bad file as the reader says.
    static func read(_ path: String, option: String, run: RunInfo?) throws -> (sides: [BaselineComparison.Side], run: RunInfo?) {
        if path != "-", !FileManager.default.fileExists(atPath: path) {
            throw InputError("\(option) '\(UntrustedText.escape(path, limit: 300))': no such file; record the first baseline with this run's options: "
                             + Comparability.recordCommand(baseline: path, run: run))
        }
        return try RunRecords.sides([path])
    }

    /// The differences between the baseline and this run: refused (64, one line with the
    /// command that records a comparable baseline) unless `anyway`, then returned for every
    /// output to say first.
    static func check(baseline: RunInfo?, path: String, run: RunInfo?, anyway: Bool) throws -> [String] {
        let differences = Comparability.differences(baseline: baseline, run: run)
        if !differences.isEmpty, !anyway { throw InputError(Comparability.refusal(differences, baseline: path, run: run)) }
        return differences
    }
}

/// `audit --baseline OLD`: the earlier run's sides, read and checked before any connection
/// (bad input is exit 64 at once), and the comparison once the run is done (AuditSink).
enum AuditBaseline {
    /// nil without --baseline; `--fail-on new` and `absent` need one.
    static func read(_ path: String?, failOn: AuditFailOnChoice, run: RunInfo, compareAnyway: Bool) throws -> BaselineInput? {
        guard let path else {
            if failOn.needsBaseline {
                throw InputError("--fail-on \(failOn.defaultValueDescription) compares with an earlier run: give it with --baseline OLD.jsonl")
            }
            return nil
        }
        let read = try BaselineReading.read(path, option: "--baseline", run: run)
        let differences = try BaselineReading.check(baseline: read.run, path: path, run: run, anyway: compareAnyway)
        // Said at once on stderr too (with --quiet as well): the comparison's own text comes at the end.
        if !differences.isEmpty {
            Diagnostics.warn("NOT COMPARABLE, compared anyway (--compare-anyway): " + differences.map { UntrustedText.escape($0, limit: 600) }.joined(separator: "; "))
        }
        return BaselineInput(path: path, sides: read.sides, notComparable: differences)
    }

    /// The exit status: with `new`/`absent`, 1 when a target got worse (or, for absent, a
    /// baseline target is no longer audited) and 0 otherwise (a local failure is still 70, a
    /// bad line 64); any other level as without a baseline.
    static func status(_ failOn: AuditFailOnChoice, tally: AuditTally, comparison: BaselineComparison?,
                       soonestWorsening: Int? = nil) -> ExitStatus {
        switch failOn {
        case .level(let level): return ExitStatus(tally.severity(failOn: level))
        case .expiring(let seconds):
            let now = ExitStatus(tally.severity(failOn: .any))
            return soonestWorsening.map { $0 <= seconds } == true ? max(now, .findings) : now
        case .new, .absent:
            if tally.localFailures > 0 { return ExitStatus(tally.severity(failOn: .any)) }
            // A bad input line is 64 with or without a baseline (docs/exit-codes.md).
            if tally.count(.error) > 0 { return .usage }
            guard let comparison else { return .clear }
            if !comparison.worse.isEmpty { return .findings }
            return failOn == .absent && !comparison.absent.isEmpty ? .findings : .clear
        }
    }
}

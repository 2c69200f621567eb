import ATSCommandOutputs
import ATSEngine
import ATSFiles
import ATSReport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport

/// `audit --baseline OLD`: the earlier run's sides, read and checked before any connection
/// (bad input is exit 64 at once), and the comparison once the run is done (AuditSink).
package enum AuditBaseline {
    /// nil without --baseline; `--fail-on new` and `absent` need one. `warn` says at once that
    /// a baseline is compared anyway.
    package static func read(_ path: String?, failOn: AuditFailOnChoice, run: RunInfo, compareAnyway: Bool,
                             warn: (String) -> Void) throws -> BaselineInput? {
        guard let path else {
            if failOn.needsBaseline {
                throw InputError(.badArgument, "--fail-on \(failOn.defaultValueDescription) compares with an earlier run: give it with --baseline OLD.jsonl")
            }
            return nil
        }
        let read = try BaselineReading.read(path, option: "--baseline", run: run)
        let differences = try BaselineReading.check(baseline: read.run, path: path, run: run, anyway: compareAnyway)
        // Said at once on stderr too (with --quiet as well): the comparison's own text comes at the end.
        if !differences.isEmpty {
            warn("NOT COMPARABLE, compared anyway (--compare-anyway): " + differences.map { UntrustedText.escape($0, limit: 600) }.joined(separator: "; "))
        }
        return BaselineInput(path: path, sides: read.sides, notComparable: differences)
    }

    /// The exit status: with `new`/`absent`, 1 when a target got worse (or, for absent, a
    /// baseline target is no longer audited) and 0 otherwise (a local failure is still 70, a
    /// bad line 64); any other level as without a baseline.
    package static func status(_ failOn: AuditFailOnChoice, tally: AuditTally, comparison: BaselineComparison?,
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

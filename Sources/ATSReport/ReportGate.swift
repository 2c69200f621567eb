import ATSContract
import ATSFiles
import TextSupport

/// `atsprobe report`'s gates over records it did not make (docs/ci.md): the exit status of a
/// rendered run under `--fail-on`, of `--diff OLD NEW`, and `--baseline-of`'s compact baseline.
/// Here, not in the executable, so `report`'s whole path stays above ATSContract
/// (ContractDependencyTests) and each gate is one function a test can call.
package enum ReportGate {
    /// The status of a rendered run: the level's, or with `expiring:` also 1 when a target's
    /// forecast loads worse within the horizon. `new`/`absent` need `--diff` (refused before).
    package static func status(_ report: Report, failOn: AuditFailOnChoice) throws -> ExitStatus {
        switch failOn {
        case .level(let level): return ExitStatus(report.tally.severity(failOn: level))
        case .expiring(let seconds):
            let status = ExitStatus(report.tally.severity(failOn: .any))
            let sides = report.records.map(BaselineComparison.Side.init)
            return try BaselineComparison.Side.worsens(sides, within: seconds) ? max(status, .findings) : status
        case .new, .absent: return .clear
        }
    }

    /// One line: the report is whole, the 64 is the run's, and how to clear it. Never a way
    /// around the gate (issue 42: `--fail-on none` in a gate step turns the gate off).
    package static func badLines(_ count: Int, written path: String?) -> String {
        let whole = path.map { "'\(UntrustedText.escape($0, limit: 300))' is written in full" } ?? "the report above is complete"
        return "exit 64: the run had \(count) bad input line\(count == 1 ? "" : "s") (records of kind \"error\", each naming its line); \(whole). "
            + "Fix or remove those lines of the input to clear it"
    }

    /// `--diff OLD NEW`: the comparison `audit --baseline` makes (RunRecords.sides,
    /// BaselineComparison); refused (64) when the runs are not comparable, unless `anyway`.
    /// Only what the comparison reads of each record is kept: memory grows with the targets,
    /// not with the records' size. NEW first: a missing OLD is answered with the command that
    /// records it under NEW's options.
    package static func diff(old: String, new: String, accepted: [String], anyway: Bool) throws -> (comparison: BaselineComparison, new: [BaselineComparison.Side], run: RunInfo?) {
        let newSides = try RunRecords.sides([new], allowEmpty: true)
        let oldSides = try BaselineReading.read(old, option: "--diff", run: newSides.run)
        var comparison = BaselineComparison(old: oldSides.sides, new: newSides.sides, accepted: accepted)
        comparison.notComparable = try BaselineReading.check(baseline: oldSides.run, path: old, run: newSides.run, anyway: anyway)
        return (comparison, newSides.sides, newSides.run)
    }

    /// `--diff`'s status: 1 when a target got worse (with `absent`, also when a baseline
    /// target is no longer audited; with `expiring:D`, also when NEW's forecast worsens within
    /// D), 64 when NEW holds a bad input line (as the run itself; `badLines` says so), else 0.
    /// Every level but `none` gates on the comparison: `--diff` is asked for it.
    package static func diffStatus(_ comparison: BaselineComparison, new: [BaselineComparison.Side], failOn: AuditFailOnChoice) throws -> ExitStatus {
        // First: NEW without the forecast `expiring:` reads is bad input whatever else it holds.
        let expiringFails = try failOn.expiringSeconds.map { try BaselineComparison.Side.worsens(new, within: $0) } ?? false
        if failOn == .level(.none) { return .clear }
        return comparedStatus(comparison, badLines: badLineCount(new), failOn: failOn, forecastWorsens: expiringFails)
    }

    /// `audit --baseline OLD`'s status (docs/exit-codes.md, rules 2, 5, 6, 8, 10b, 15): with
    /// `new`/`absent`, the comparison's, as `--diff` gives it, after a local failure's 70; any
    /// other level as without a baseline (the run's own tally), `expiring:` reading the run's
    /// forecast (`soonestWorsening`, seconds from the run's instant).
    package static func auditStatus(_ failOn: AuditFailOnChoice, tally: AuditTally, comparison: BaselineComparison?,
                                    soonestWorsening: Int? = nil) -> ExitStatus {
        switch failOn {
        case .level(let level): return ExitStatus(tally.severity(failOn: level))
        case .expiring(let seconds):
            let now = ExitStatus(tally.severity(failOn: .any))
            return soonestWorsening.map { $0 <= seconds } == true ? max(now, .findings) : now
        case .new, .absent:
            if tally.localFailures > 0 { return ExitStatus(tally.severity(failOn: .any)) }
            return comparedStatus(comparison, badLines: tally.count(.error), failOn: failOn, forecastWorsens: false)
        }
    }

    /// The one rule `audit --baseline` and `report --diff` share: a bad input line is 64 with or
    /// without a baseline (docs/exit-codes.md); then 1 when a target got worse or its forecast
    /// worsens within the horizon, or with `absent` when a baseline target is gone; else 0.
    static func comparedStatus(_ comparison: BaselineComparison?, badLines: Int, failOn: AuditFailOnChoice,
                               forecastWorsens: Bool) -> ExitStatus {
        if badLines > 0 { return .usage }
        if forecastWorsens { return .findings }
        guard let comparison else { return .clear }
        if !comparison.worse.isEmpty { return .findings }
        return failOn == .absent && !comparison.absent.isEmpty ? .findings : .clear
    }

    /// The bad input lines a run recorded (records of kind "error"), which make its status 64.
    package static func badLineCount(_ sides: [BaselineComparison.Side]) -> Int {
        sides.count { $0.verdict == .error }
    }

    /// `--baseline-of RUN`: RUN's compact baseline (CompactBaseline); with `update` OLD and
    /// `accept`, OLD with only the accepted targets taken from RUN (refused when the two are
    /// not comparable, unless `anyway`).
    package static func baseline(of path: String, update: String?, accept: [String], anyway: Bool) throws -> String {
        let run = try RunRecords.sides([path])
        var sides = run.sides, info = run.run
        if let update {
            guard !accept.isEmpty else { throw InputError(.badArgument, "--update moves targets of the baseline forward: name each with --accept TARGET") }
            let old = try BaselineReading.read(update, option: "--update", run: run.run)
            _ = try BaselineReading.check(baseline: old.run, path: update, run: run.run, anyway: anyway)
            sides = try CompactBaseline.accepting(accept, baseline: old.sides, run: run.sides)
            info = old.run ?? run.run
        } else if !accept.isEmpty {
            throw InputError(.badArgument, "--accept with --baseline-of needs the baseline to move forward: --update BASELINE")
        }
        return CompactBaseline.render(sides, run: info)
    }
}

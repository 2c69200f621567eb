import ATSPolicy
import ATSProbe
import Synchronization
import TLSFacts

extension AuditScheduler {
    /// Runs `targets` under the limits and returns each target's result (`finished`,
    /// `timedOut` or `failedLocally`) in the order given, tagged by its index: what
    /// `diagnose`, `plist check` and `app` print. `onEvent` sees every event as it happens
    /// (a progress line, nscurl's live output); a target's slot is held until its call returns.
    /// `inOrder` streams the finished reports in the order given, each as soon as it and every
    /// target before it are done; it stops at the first target without a report (a local
    /// failure, a time-out), as a command that prints one target after another stops there. It
    /// runs under the results' lock, so it must be short (a write to standard output).
    /// Cancelled, the run starts nothing more and returns the results it has, still in order.
    public func runInOrder(
        _ targets: [Target], onEvent: @escaping @Sendable (AuditEvent<Int, Work.Report>) async -> Void = { _ in },
        inOrder: (@Sendable (_ index: Int, _ report: Work.Report) -> Void)? = nil
    ) async -> [AuditEvent<Int, Work.Report>] {
        let jobs = AsyncStream<AuditJob<Int>> { continuation in
            for (index, target) in targets.enumerated() { continuation.yield(.target(target, tag: index)) }
            continuation.finish()
        }
        let results = InOrderResults<Work.Report>(inOrder: inOrder)
        await run(jobs) { event in
            await onEvent(event)
            if event.isResult { results.store(event) }
        }
        let collected = results.all()
        return targets.indices.compactMap { collected[$0] }
    }
}

/// Results stored by their input index from the targets' own tasks, and handed on in input
/// order as they become contiguous (a `Mutex` is not copyable, so the scheduler's closures
/// share it through this class).
final class InOrderResults<Report: Sendable>: Sendable {
    private struct State {
        var byIndex: [Int: AuditEvent<Int, Report>] = [:]
        /// The first index not yet handed on.
        var next = 0
        /// A target without a report was reached: nothing more is handed on.
        var stopped = false
    }

    private let state = Mutex(State())
    private let inOrder: (@Sendable (Int, Report) -> Void)?

    init(inOrder: (@Sendable (Int, Report) -> Void)?) { self.inOrder = inOrder }

    func store(_ event: AuditEvent<Int, Report>) {
        state.withLock { state in
            state.byIndex[event.tag] = event
            guard let inOrder else { return }
            while !state.stopped, let ready = state.byIndex[state.next] {
                state.next += 1
                if case .finished(let index, _, let report) = ready {
                    inOrder(index, report)
                } else {
                    state.stopped = true
                }
            }
        }
    }

    func all() -> [Int: AuditEvent<Int, Report>] { state.withLock { $0.byIndex } }
}

/// A count several tasks add to.
final class Counter: Sendable {
    private let count = Mutex(0)

    /// Adds one; returns the new count.
    func increment() -> Int {
        count.withLock { count in
            count += 1
            return count
        }
    }
}

/// `plist check` and `app` on one target: the load under the app's own dictionary and
/// nscurl's diagnostics for the host (`PlistTargetCheck`), run by the scheduler.
public struct PlistCheckWork: AuditWork {
    public let configuration: ATSConfiguration
    public let runner: DiagnosticsRunner

    public init(configuration: ATSConfiguration, runner: DiagnosticsRunner) {
        self.configuration = configuration
        self.runner = runner
    }

    public func audit(_ target: Target) async -> PlistTargetCheck {
        await PlistTargetCheck.run(target, configuration: configuration, runner: runner)
    }

    public func localFailure(of report: PlistTargetCheck) -> ProbeFailure? { report.diagnostics?.localFailure }
    public func interruption(of report: PlistTargetCheck) -> ProbeFailure? { report.diagnostics?.interruption }
    public func admitted() async -> Bool { await runner.admitted() }
    public var stalledSeconds: Double { runner.stalledSeconds }
}

/// nscurl's diagnostics with each test handed to `onTest` as it completes (with the target it
/// belongs to): `diagnose`'s live output on a terminal.
public struct StreamingDiagnosticsWork: AuditWork {
    public let runner: DiagnosticsRunner
    public let onTest: @Sendable (Target, Int, TestOutcome) async -> Void

    public init(runner: DiagnosticsRunner, onTest: @escaping @Sendable (Target, Int, TestOutcome) async -> Void) {
        self.runner = runner
        self.onTest = onTest
    }

    public func audit(_ target: Target) async -> DiagnosticsReport {
        let onTest = self.onTest
        return await runner.run(target) { index, test in await onTest(target, index, test) }
    }

    public func localFailure(of report: DiagnosticsReport) -> ProbeFailure? { report.localFailure }
    public func interruption(of report: DiagnosticsReport) -> ProbeFailure? { report.interruption }
    public func admitted() async -> Bool { await runner.admitted() }
    public var stalledSeconds: Double { runner.stalledSeconds }
}

/// `diagnose --rules all` on one target: nscurl's tests under each of `ruleSets`, on shared
/// handshakes (`runAcrossRuleSets`), run by the scheduler.
public struct RuleSetMatrixWork: AuditWork {
    public let runner: DiagnosticsRunner
    public let ruleSets: [RuleSet]

    public init(runner: DiagnosticsRunner, ruleSets: [RuleSet]) {
        self.runner = runner
        self.ruleSets = ruleSets
    }

    public func audit(_ target: Target) async -> RuleSetMatrix { await runner.runAcrossRuleSets(target, ruleSets: ruleSets) }

    public func localFailure(of report: RuleSetMatrix) -> ProbeFailure? { report.reports.lazy.compactMap(\.localFailure).first }
    public func interruption(of report: RuleSetMatrix) -> ProbeFailure? { report.reports.lazy.compactMap(\.interruption).first }
    public func admitted() async -> Bool { await runner.admitted() }
    public var stalledSeconds: Double { runner.stalledSeconds }
}

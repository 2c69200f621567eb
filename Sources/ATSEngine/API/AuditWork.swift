import ATSProbe
import TLSFacts

/// The work an audit does on one target: nscurl's diagnostics (`DiagnosticsRunner`), or in a
/// test a fake that the test finishes by hand. The scheduler runs it under the run's limits
/// and cancels it at the deadline.
public protocol AuditWork: Sendable {
    associatedtype Report: Sendable
    /// One run on one target. Cancellation must end it promptly (the deadline relies on it).
    func audit(_ target: Target) async -> Report
    /// Set when the run failed on this machine (out of descriptors, memory), not at the
    /// server: the target is run again, and reported as a local failure if it keeps failing.
    func localFailure(of report: Report) -> ProbeFailure?
    /// Set when the run was cut short on this side without the scheduler's run being cancelled
    /// (its probe runtime shut down under it): the report judges nothing, and the target is
    /// reported as failed locally with this failure, never with a verdict.
    func interruption(of report: Report) -> ProbeFailure?
    /// Waits until this machine can take one more target (the probe engine keeping up), before
    /// the target starts and its `--deadline` runs: time spent waiting for this machine's CPU is
    /// never the server's. False when the task was cancelled while waiting. No default: every
    /// work says how it is admitted (a work over a `DiagnosticsRunner` forwards to it), so none
    /// skips admission by omission (issue 39).
    func admitted() async -> Bool
    /// Seconds this machine was seen not running so far (stopped by SIGSTOP or a debugger,
    /// starved of CPU: `ProbeRuntime.stalledSeconds`). A target whose deadline passed while this
    /// grew is this machine's failure: run again, never reported as timed out. No default either:
    /// a work over a `DiagnosticsRunner` forwards its runtime's.
    var stalledSeconds: Double { get }
}

extension AuditWork {
    public func interruption(of report: Report) -> ProbeFailure? { nil }
}

extension DiagnosticsRunner: AuditWork {
    public func audit(_ target: Target) async -> DiagnosticsReport { await run(target) }
    public func localFailure(of report: DiagnosticsReport) -> ProbeFailure? { report.localFailure }
    public func interruption(of report: DiagnosticsReport) -> ProbeFailure? { report.interruption }
    public func admitted() async -> Bool { await prober.runtime.admit() }
    public var stalledSeconds: Double { prober.runtime.stalledSeconds }
}

/// One entry of an audit's input: a target, or a line that is not one (reported in its place
/// among the results). `Tag` is the caller's (the command's input line).
public struct AuditJob<Tag: Sendable>: Sendable {
    public enum Content: Sendable {
        case target(Target)
        /// Not a target: why, and the key that shards it (the line's position).
        case rejected(reason: String, shardKey: String)
    }

    public var tag: Tag
    public var content: Content

    public init(tag: Tag, content: Content) {
        self.tag = tag
        self.content = content
    }

    public static func target(_ target: Target, tag: Tag) -> AuditJob { AuditJob(tag: tag, content: .target(target)) }
    public static func rejected(_ reason: String, shardKey: String, tag: Tag) -> AuditJob {
        AuditJob(tag: tag, content: .rejected(reason: reason, shardKey: shardKey))
    }
}

/// What the scheduler reports, as it happens. Every job of the run's shard ends in exactly one
/// of `finished`, `timedOut`, `failedLocally` or `rejected`; a target reports `started` first.
/// When the run is cancelled, a target still running reports nothing after `started`: its
/// cut-short work is no verdict (`AuditScheduler.attempt`).
public enum AuditEvent<Tag: Sendable, Report: Sendable>: Sendable {
    case started(Tag, Target)
    case finished(Tag, Target, Report)
    /// The deadline passed first: the run was cancelled (its sockets closed) and awaited.
    case timedOut(Tag, Target)
    /// Every run failed on this machine; the last run's failure.
    case failedLocally(Tag, Target, ProbeFailure)
    case rejected(Tag, reason: String)

    public var tag: Tag {
        switch self {
        case .started(let tag, _), .finished(let tag, _, _), .timedOut(let tag, _), .failedLocally(let tag, _, _),
             .rejected(let tag, _):
            tag
        }
    }

    /// False only for `started`.
    public var isResult: Bool {
        if case .started = self { return false }
        return true
    }
}

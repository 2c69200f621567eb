import ATSAdvice
import ATSApp
import ATSPolicy
import PropertyList
import TextSupport
import TLSFacts

/// A run of targets a command prints in order could not give every target's result: this
/// machine failed one (out of descriptors, memory; after `AuditLimits.inOrder`, no retry), or
/// its deadline passed. No verdict can be drawn, so the command stops (exit 70).
public struct TargetRunError: Error, Sendable {
    public var target: Target
    /// nil: the deadline passed (or the run was cancelled) before the target finished.
    public var failure: ProbeFailure?

    public init(target: Target, failure: ProbeFailure?) {
        self.target = target
        self.failure = failure
    }

    /// The reports of `runInOrder(targets)`'s events, in the targets' order; throws for the
    /// first target without one.
    public static func reports<Report>(of events: [AuditEvent<Int, Report>], targets: [Target]) throws(TargetRunError) -> [Report] {
        var reports: [Int: Report] = [:]
        for event in events {
            switch event {
            case .finished(let index, _, let report): reports[index] = report
            case .failedLocally(_, let target, let failure): throw TargetRunError(target: target, failure: failure)
            case .started, .timedOut, .rejected: continue
            }
        }
        var ordered: [Report] = []
        for (index, target) in targets.enumerated() {
            guard let report = reports[index] else { throw TargetRunError(target: target, failure: nil) }
            ordered.append(report)
        }
        return ordered
    }
}

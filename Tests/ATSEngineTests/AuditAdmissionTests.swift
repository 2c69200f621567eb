import Synchronization
import Testing
@testable import ATSEngine
import TLSFacts

/// The scheduler starts a target only once the work admits it (the probe engine keeping up):
/// a target waiting for this machine's CPU has not started, so its --deadline is not running
/// and nothing of it is reported (issue 35).
@Suite("Audit admission", .timeLimit(.minutes(1)))
struct AuditAdmissionTests {
    /// Admits nothing until `open()`; then runs each target at once.
    final class GatedWork: AuditWork, Sendable {
        private let state = Mutex((open: false, waiting: [CheckedContinuation<Bool, Never>](), asked: 0, ran: [String]()))

        var asked: Int { state.withLock { $0.asked } }
        var ran: [String] { state.withLock { $0.ran } }

        /// Never stopped.
        var stalledSeconds: Double { 0 }

        func admitted() async -> Bool {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let now = state.withLock { state -> Bool in
                    state.asked += 1
                    if state.open { return true }
                    state.waiting.append(continuation)
                    return false
                }
                if now { continuation.resume(returning: true) }
            }
        }

        func open() {
            let waiting = state.withLock { state in
                state.open = true
                defer { state.waiting = [] }
                return state.waiting
            }
            for continuation in waiting { continuation.resume(returning: true) }
        }

        func audit(_ target: Target) async -> String {
            state.withLock { $0.ran.append(target.url) }
            return target.url
        }

        func localFailure(of report: String) -> ProbeFailure? { nil }
    }

    @Test func noTargetStartsUntilTheWorkAdmitsIt() async {
        let work = GatedWork()
        let targets = AuditSchedulerTests.targets(3)
        let scheduler = AuditScheduler(limits: AuditSchedulerTests.limits(concurrency: 3), work: work, clock: ManualClock())
        let log = EventLog(scheduler.results(for: jobs(targets)))
        // The first target asks and waits; nothing has started or run.
        let end = ContinuousClock.now.advanced(by: .seconds(10))
        while work.asked == 0 && ContinuousClock.now < end { await Task.yield() }
        #expect(work.asked == 1)
        #expect(work.ran.isEmpty)
        #expect(log.seen.isEmpty, "a target reported 'started' before it was admitted")
        work.open()
        let all = await log.all
        #expect(work.asked == 3)
        #expect(Set(work.ran) == Set(targets.map(\.url)))
        #expect(all.filter { $0.kind == "finished" }.count == 3)
    }
}

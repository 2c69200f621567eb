import Synchronization
import Testing
@testable import ATSEngine
import TLSFacts

/// `AuditScheduler.runInOrder`, how `diagnose`, `plist check` and `app` run their targets: the
/// scheduler's limits and cancellation, results handed back in input order. Fake runs, finished
/// by hand; no sockets, no sleeps.
@Suite("Scheduler in input order", .timeLimit(.minutes(1)))
struct AuditInOrderTests {
    static func targets(_ count: Int) -> [Target] {
        (0..<count).map { Target(host: "host\($0).example", path: "/\($0)") }
    }

    /// What `inOrder` was handed, in the order handed.
    final class InOrderLog: Sendable {
        private let indices = Mutex<[Int]>([])
        func add(_ index: Int) { indices.withLock { $0.append(index) } }
        var all: [Int] { indices.withLock { $0 } }
    }

    /// The finish order a run's `onEvent` saw.
    actor FinishLog {
        var finished: [Int] = []
        func add(_ index: Int) { finished.append(index) }
    }

    /// Three in flight; the test finishes the most recently started run each time, so runs end
    /// out of input order, and `onEvent` sees them so. `inOrder` is handed them in input order,
    /// the results come back in input order, and no deadline is slept on (AuditLimits.inOrder:
    /// each connection's --timeout bounds it).
    @Test func resultsComeBackInInputOrderWhateverOrderTheyFinish() async throws {
        let work = FakeWork()
        let clock = ManualClock()
        let targets = Self.targets(6)
        let scheduler = AuditScheduler(limits: .inOrder(concurrency: 3), work: work, clock: clock)
        let log = FinishLog()
        let streamed = InOrderLog()
        let run = Task {
            await scheduler.runInOrder(targets, onEvent: { event in
                if case .finished(let index, _, _) = event { await log.add(index) }
            }, inOrder: { index, report in
                #expect(report.url == targets[index].url)
                streamed.add(index)
            })
        }
        for done in 0..<targets.count {
            let expected = min(3, targets.count - done)
            await work.waitUntil { $0.running.count == expected }
            let last = work.snapshot.started.last { work.snapshot.running.contains($0) }!
            #expect(work.finish(last))
        }
        let events = await run.value
        let finishOrder = await log.finished
        #expect(finishOrder != Array(0..<6), "the runs finished out of input order")
        #expect(Set(finishOrder) == Set(0..<6))
        #expect(streamed.all == Array(0..<6))
        #expect(events.map(\.tag) == Array(0..<6))
        let reports = try TargetRunError.reports(of: events, targets: targets)
        #expect(reports.map(\.url) == targets.map(\.url))
        #expect(work.snapshot.peak == 3)
        #expect(clock.requestedDeadlines.isEmpty)
    }

    /// A run this machine fails is not run again (the command stops, exit 70), and the error
    /// names its target and the failure; `inOrder` stops before it, though the target after it
    /// finished.
    @Test func aLocalFailureIsNotRetriedAndNamesItsTarget() async {
        let targets = Self.targets(3)
        let work = FakeWork(immediate: true, localFailures: [targets[1].url: 1])
        let scheduler = AuditScheduler(limits: .inOrder(concurrency: 2), work: work, clock: ManualClock())
        let streamed = InOrderLog()
        let events = await scheduler.runInOrder(targets, inOrder: { index, _ in streamed.add(index) })
        #expect(events.map(\.tag) == [0, 1, 2])
        #expect(streamed.all == [0])
        #expect(work.snapshot.runs[targets[1].url] == 1, "no retry")
        do throws(TargetRunError) {
            _ = try TargetRunError.reports(of: events, targets: targets)
            Issue.record("a local failure must stop the command")
        } catch {
            #expect(error.target.url == targets[1].url)
            #expect(error.failure?.kind == .localResources)
        }
    }

    /// Cancelled (the command's task ends), the run starts nothing more and returns what
    /// finished, in order; the first target without a result is named, with no failure.
    @Test func aCancelledRunReturnsWhatFinishedAndNamesTheFirstMissing() async {
        let work = FakeWork()
        let targets = Self.targets(4)
        let scheduler = AuditScheduler(limits: .inOrder(concurrency: 1), work: work, clock: ManualClock())
        let run = Task { await scheduler.runInOrder(targets) }
        await work.waitUntil { $0.running == [targets[0].url] }
        #expect(work.finish(targets[0].url))
        await work.waitUntil { $0.running == [targets[1].url] }
        run.cancel()
        let events = await run.value
        // The second target's run was cut by the cancel: its report (made of cancelled work) is
        // no result, so only the first is returned (issue 24).
        #expect(events.map(\.tag) == [0], "\(events.map { "\($0.kind) \($0.tag)" })")
        #expect(work.snapshot.cancelled == [targets[1].url])
        #expect(!events.contains { $0.tag == 3 }, "nothing started after the cancel")
        #expect(!work.snapshot.started.contains(targets[3].url))
        do throws(TargetRunError) {
            _ = try TargetRunError.reports(of: events, targets: targets)
            Issue.record("a run that did not finish every target has no reports")
        } catch {
            #expect(error.target.url == targets[events.count].url)
            #expect(error.failure == nil)
        }
    }
}

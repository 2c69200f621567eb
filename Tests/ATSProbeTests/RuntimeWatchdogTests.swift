import Foundation
import Synchronization
import Testing
import TLSFacts
import ATSFiles
@testable import ATSProbe

/// The runtime's last guard (issue 31, item 0): a runtime whose threads stop answering is
/// reported; a healthy one, busy or idle, never is; nor one that was only stopped or starved
/// (issue 40, item 2: `StoppedRunTests` stops the binary itself).
@Suite("Runtime watchdog")
struct RuntimeWatchdogTests {
    @Test func aStuckExecutorIsReported() async throws {
        let runtime = try ProbeRuntime(configuration: .init(engineThreads: 1, threadNamePrefix: "wd-stuck"))
        let release = DispatchSemaphore(value: 0)
        let blocked = DispatchSemaphore(value: 0)
        // The executor's only thread is held, as a deadlocked thread would be.
        Task(executorPreference: runtime.executor) {
            blocked.signal()
            release.wait()
        }
        #expect(blocked.wait(timeout: .now() + 10) == .success)
        let reported = await withCheckedContinuation { (continuation: CheckedContinuation<Double?, Never>) in
            let once = ResumeOnce(continuation)
            _ = RuntimeWatchdog.start(on: runtime, stuckAfter: 0.5, interval: 0.05) { seconds in once.resume(seconds) }
            DispatchQueue.global().asyncAfter(deadline: .now() + 20) { once.resume(nil) }
        }
        release.signal()
        #expect(reported != nil, "the watchdog did not report an executor held for 20 s")
        if let reported { #expect(reported >= 0.5) }
        try await runtime.shutdown()
    }

    @Test func aHealthyRuntimeIsNeverReported() async throws {
        let runtime = try ProbeRuntime(configuration: .init(engineThreads: 2, threadNamePrefix: "wd-healthy"))
        let stuck = Mutex(false)
        guard let watchdog = RuntimeWatchdog.start(on: runtime, stuckAfter: 0.5, interval: 0.02,
                                                   onStuck: { _ in stuck.withLock { $0 = true } }) else {
            Issue.record("no thread for the watchdog")
            return
        }
        // Busy: many short sleeps on the reactor while the watchdog pings, until it has been
        // answered 20 times (each ping waits out at least one interval).
        let until = Deadline(secondsFromNow: 20)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask(executorPreference: runtime.executor) {
                    while watchdog.pingsAnswered < 20 && !until.hasPassed {
                        _ = await runtime.reactor.sleep(until: Deadline(secondsFromNow: 0.002))
                    }
                }
            }
        }
        #expect(watchdog.pingsAnswered >= 20)
        #expect(!stuck.withLock { $0 })
        try await runtime.shutdown()
    }

    /// The ledger driven with instants of the test's own: a 15 s gap between two wake-ups (the
    /// process stopped by SIGSTOP) is not counted, however long; ten on-time seconds are.
    @Test func aStopIsNotAStall() {
        var ledger = WatchdogLedger(stuckAfter: 10, interval: 1)
        #expect(ledger.tick(now: 100, jobsTaken: 7) == .sendPing)
        // Stopped right after the ping was sent, resumed 15 s later: nothing ran, nothing is said.
        #expect(ledger.tick(now: 115, jobsTaken: 7) == .wait)
        #expect(ledger.stalled == 0)
        // Ten more on-time seconds with the ping unanswered and no job taken: a stall.
        var reported: Double?
        for second in 1...10 {
            if case .report(let seconds) = ledger.tick(now: 115 + Double(second), jobsTaken: 7) { reported = seconds }
        }
        #expect(reported == 10)
        // Reported once.
        #expect(ledger.tick(now: 126, jobsTaken: 7) == .wait)
    }

    /// A starved process (a 1% CPU quota): the ping waits behind the queue for minutes, but the
    /// executor takes jobs every second, so nothing is reported.
    @Test func aStarvedButProgressingEngineIsNotAStall() {
        var ledger = WatchdogLedger(stuckAfter: 10, interval: 1)
        #expect(ledger.tick(now: 0, jobsTaken: 0) == .sendPing)
        for second in 1...300 {
            #expect(ledger.tick(now: Double(second) * 1.05, jobsTaken: UInt64(second)) == .wait)
        }
        #expect(ledger.stalled == 0)
        ledger.answered()
        #expect(ledger.tick(now: 400, jobsTaken: 300) == .sendPing)
        #expect(ledger.pingsAnswered == 1)
    }

    /// Late but not missed wake-ups (a loaded machine) still count: a stuck engine on a busy
    /// machine is reported.
    @Test func lateWakeUpsStillCount() {
        var ledger = WatchdogLedger(stuckAfter: 10, interval: 1)
        #expect(ledger.tick(now: 0, jobsTaken: 3) == .sendPing)
        var now = 0.0, reported = false
        for _ in 0..<8 {
            now += 1.9  // within interval + max(interval, 0.5 s)
            if case .report = ledger.tick(now: now, jobsTaken: 3) { reported = true }
        }
        #expect(reported)
    }

    /// The reactor's count of time the process did not run: each wait's lateness once, whoever
    /// sees it first (a probe asking while the loop is still overdue, or the loop waking).
    @Test func theReactorCountsEachStopOnce() {
        var ledger = StallLedger()
        ledger.begin(expectedBy: 10)
        ledger.observe(now: 10.3, threshold: 0.5)
        #expect(ledger.lost == 0, "a wake-up 0.3 s late is scheduling, not a stop")
        ledger.observe(now: 25, threshold: 0.5)  // a probe asks first, 15 s after the loop was due
        #expect(ledger.lost == 15)
        ledger.end(now: 25.5, threshold: 0.5)  // then the loop wakes: only the rest is added
        #expect(ledger.lost == 15.5)
        ledger.observe(now: 40, threshold: 0.5)  // not waiting: nothing to be late for
        #expect(ledger.lost == 15.5)
    }

    /// A probe that failed while the process was stopped is this machine's failure; one that
    /// failed while it ran, or succeeded, stays as it was.
    @Test func aFailureDuringAStopIsLocal() {
        let timeout = ProbeFailure(kind: .handshakeTimeout, detail: "no answer before the deadline", elapsedMilliseconds: 15_000)
        let local = Prober.blamingThisMachine(timeout, stalled: 14.6)
        #expect(local.kind == .localResources)
        #expect(local.detail.hasPrefix("this machine did not run for 15.0 s during the probe"), "\(local.detail)")
        #expect(Prober.blamingThisMachine(timeout, stalled: 0.2) == timeout)
        let cancelled = ProbeFailure(kind: .cancelled, detail: "cancelled")
        #expect(Prober.blamingThisMachine(cancelled, stalled: 30) == cancelled)
    }
}

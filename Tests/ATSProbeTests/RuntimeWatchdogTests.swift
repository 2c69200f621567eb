import Foundation
import Synchronization
import Testing
@testable import ATSProbe

/// The runtime's last guard (issue 31, item 0): a runtime whose threads stop answering is
/// reported; a healthy one, busy or idle, never is.
@Suite("Runtime watchdog")
struct RuntimeWatchdogTests {
    @Test func aStuckExecutorIsReported() async throws {
        let runtime = ProbeRuntime(configuration: .init(engineThreads: 1, threadNamePrefix: "wd-stuck"))
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
        let runtime = ProbeRuntime(configuration: .init(engineThreads: 2, threadNamePrefix: "wd-healthy"))
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
}

import Foundation
import Testing
@testable import ATSProbe

/// The watchdog behind every handshake and audit deadline: it fires late work, and work that
/// ends in time leaves nothing behind (memory follows what is in flight, not what is done).
@Suite("Watchdog")
struct WatchdogTests {
    @Test func firesAtTheDeadline() {
        let watchdog = Watchdog()
        let fired = DispatchSemaphore(value: 0)
        let started = Date()
        _ = watchdog.schedule(after: 0.05) { fired.signal() }
        #expect(fired.wait(timeout: .now() + 10) == .success)
        #expect(Date().timeIntervalSince(started) >= 0.05)
        #expect(watchdog.pending == 0)
    }

    @Test func aCancelledEntryLeavesAtOnceAndNeverFires() {
        let watchdog = Watchdog()
        let cancelledFired = DispatchSemaphore(value: 0)
        let tokens = (0..<1000).map { _ in watchdog.schedule(after: 0.1) { cancelledFired.signal() } }
        #expect(watchdog.pending == 1000)
        tokens.forEach(watchdog.cancel)
        #expect(watchdog.pending == 0)
        // A later entry firing proves the thread passed the cancelled ones' deadline.
        let later = DispatchSemaphore(value: 0)
        _ = watchdog.schedule(after: 0.2) { later.signal() }
        #expect(later.wait(timeout: .now() + 10) == .success)
        #expect(cancelledFired.wait(timeout: .now()) == .timedOut)
    }

    @Test func anEarlierDeadlineWakesTheThread() {
        let watchdog = Watchdog()
        _ = watchdog.schedule(after: 3600) {}
        let fired = DispatchSemaphore(value: 0)
        _ = watchdog.schedule(after: 0.01) { fired.signal() }
        #expect(fired.wait(timeout: .now() + 10) == .success, "must not wait for the hour-long entry")
        #expect(watchdog.pending == 1)
    }
}

import Foundation
import Synchronization
import Testing
@testable import ATSEngine
import ATSPolicy
@testable import ATSProbe
import TLSFacts

/// Every audit work waits for the probe engine before its target starts (issue 39, item 7): the
/// works of `plist check` and `app` (`PlistCheckWork`), live `diagnose` (`StreamingDiagnosticsWork`)
/// and `--rules all` (`RuleSetMatrixWork`) forward `admitted()` to their runner. Before, they took
/// the protocol's default (`true` at once), and target admission was skipped for those commands.
@Suite("Work admission and the cleartext task", .timeLimit(.minutes(1)))
struct WorkAdmissionTests {
    /// Polls `condition` until it holds or 10 s pass (a bound, not a sleep to synchronise on).
    private func eventually(_ condition: () -> Bool) async -> Bool {
        let end = Deadline(secondsFromNow: 10)
        while !condition() {
            if end.hasPassed { return false }
            try? await Task.sleep(nanoseconds: 1_000_000)
        }
        return true
    }

    enum Kind: String, CaseIterable, Sendable { case plistCheck, streaming, ruleSetMatrix }

    @Test("Each work waits for the engine while it is behind", arguments: Kind.allCases)
    func eachWorkIsAdmittedByTheEngine(_ kind: Kind) async throws {
        let runtime = try ProbeRuntime(configuration: .init(engineThreads: 1, threadNamePrefix: "adm-\(kind.rawValue)"))
        let executor = runtime.executor
        let prober = try Prober(options: ProbeOptions(useSystemTrustStore: false), runtime: runtime)
        let runner = DiagnosticsRunner(prober: prober, options: DiagnosticsOptions(ruleSet: .ios26, timeout: 5))
        let admitted: @Sendable () async -> Bool = switch kind {
        case .plistCheck: { await PlistCheckWork(configuration: ATSConfiguration(), runner: runner).admitted() }
        case .streaming: { await StreamingDiagnosticsWork(runner: runner, onTest: { _, _, _ in }).admitted() }
        case .ruleSetMatrix: { await RuleSetMatrixWork(runner: runner, ruleSets: RuleSet.all).admitted() }
        }

        // The only engine thread is held while another job queues behind it: the engine is behind.
        let release = DispatchSemaphore(value: 0)
        let blocked = DispatchSemaphore(value: 0)
        Task(executorPreference: executor) {
            blocked.signal()
            release.wait()
        }
        #expect(blocked.wait(timeout: .now() + 10) == .success)
        let queued = Task(executorPreference: executor) {}
        #expect(await eventually { executor.admissionCounts.oldestWaitSeconds > EngineExecutor.Admission.saturatedLag })

        let answer = Mutex<Bool?>(nil)
        let waiter = Task.detached { let value = await admitted(); answer.withLock { $0 = value } }
        let waited = await eventually { executor.admissionCounts.waiting == 1 }
        #expect(waited, "\(kind): the work did not wait for the engine (admission skipped)")
        #expect(answer.withLock { $0 } == nil || !waited)

        release.signal()
        await queued.value
        await waiter.value
        #expect(answer.withLock { $0 } == true)
        try await runtime.shutdown()
    }

    /// `LoadCache.cleartext`'s GET ends when the run waiting for it is cancelled: its socket is
    /// closed at once, not when the GET's own timeout (30 s here) passes. Before, the GET was an
    /// unstructured `Task {}` nothing cancelled.
    @Test func aCancelledWaiterCancelsTheCleartextGET() async throws {
        let server = try AuditLoopbackTests.SilentListener()
        let prober = try Prober(options: ProbeOptions(useSystemTrustStore: false))
        let cache = LoadCache(prober: prober)
        let target = try Target(parsing: "http://127.0.0.1:\(server.port)/")
        let request = ProbeRequest(target: target, offer: Prober.widestOffer, timeout: 30)
        let started = ContinuousClock.now
        let waiter = Task { await cache.cleartext(for: request) }
        // Connected (the server's backlog holds it), then the run is cancelled.
        var connections: [Int32] = []
        let end = Deadline(secondsFromNow: 10)
        while connections.isEmpty && !end.hasPassed {
            connections += server.acceptAll()
            try? await Task.sleep(nanoseconds: 1_000_000)
        }
        defer { for connection in connections { close(connection) } }
        #expect(connections.count == 1)
        waiter.cancel()
        _ = await waiter.value
        #expect(ContinuousClock.now - started < .seconds(20), "the GET ran to its own timeout")
        for connection in connections {
            #expect(AuditLoopbackTests.SilentListener.seesEndOfStream(connection, within: 5), "the cancelled GET left its socket open")
        }
    }
}

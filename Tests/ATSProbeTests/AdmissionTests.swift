import Foundation
import Synchronization
import Testing
import ATSTestServers
import TLSFacts
@testable import ATSProbe

/// A probe's deadline is the server's, never this machine's (issue 35): when the engine's threads
/// are behind, new probes wait to start (before their clock runs) instead of timing out in the
/// queue and reading as "the server timed out". (At RTT 0, 1,000 targets at load 6 on 2 cores
/// gave 303 answered before; 1,000 with admission.)
@Suite("Engine admission")
struct AdmissionTests {
    /// Polls `condition` until it holds or 10 s pass (a bound, not a sleep to synchronise on).
    private func eventually(_ condition: () -> Bool) async -> Bool {
        let end = Deadline(secondsFromNow: 10)
        while !condition() {
            if end.hasPassed { return false }
            try? await Task.sleep(nanoseconds: 1_000_000)
        }
        return true
    }

    @Test func aProbeWaitsWhileTheThreadsAreBehindAndStartsWhenTheyCatchUp() async throws {
        let runtime = try ProbeRuntime(configuration: .init(engineThreads: 1, threadNamePrefix: "adm-unit"))
        let executor = runtime.executor
        let release = DispatchSemaphore(value: 0)
        let blocked = DispatchSemaphore(value: 0)
        // The only thread is held by a long job while another job queues behind it.
        Task(executorPreference: executor) {
            blocked.signal()
            release.wait()
        }
        #expect(blocked.wait(timeout: .now() + 10) == .success)
        let queuedRan = Task(executorPreference: executor) {}
        #expect(await eventually { executor.admissionCounts.oldestWaitSeconds > EngineExecutor.Admission.saturatedLag })

        let admitted = Mutex<Bool?>(nil)
        let waiter = Task.detached { let answer = await executor.admit(); admitted.withLock { $0 = answer } }
        let cancelled = Task.detached { await executor.admit() }
        #expect(await eventually { executor.admissionCounts.waiting == 2 }, "admit() did not wait behind a held thread")
        #expect(admitted.withLock { $0 } == nil)

        // A waiter whose task is cancelled leaves at once, not admitted.
        cancelled.cancel()
        #expect(await cancelled.value == false)
        #expect(executor.admissionCounts.waiting == 1)

        // The thread catches up: the queued job runs and the waiting probe is let in.
        release.signal()
        await queuedRan.value
        await waiter.value
        #expect(admitted.withLock { $0 } == true)
        #expect(executor.admissionCounts.heldBack == 2)
        // Not behind any more: no wait at all.
        #expect(await executor.admit())
        try await runtime.shutdown()
    }

    @Test func noProbeConnectsWhileTheEngineIsBehindAndEachStartsOnceItCatchesUp() async throws {
        let fixture = try ProbeFixture()
        let runtime = try ProbeRuntime(configuration: .init(engineThreads: 1, threadNamePrefix: "adm-e2e"))
        let prober = try Prober(options: ProbeOptions(caFile: fixture.rootPath, useSystemTrustStore: false), runtime: runtime)
        let configuration = TLSServerConfiguration(identity: try fixture.pki.issue(CertificateSpec()))
        try await TestTLSServer.serving(configuration) { server in
            // 200 busy tasks on the engine's only thread, each 6 ms of work between waits: every
            // job waits about 1.2 s in the queue. They stop once every probe waits for admission
            // or has ended (at most 20 s), noting how many connections the server had accepted
            // by then: not at a set time, which a test task kept off a busy cooperative pool
            // could miss.
            let probes = 20
            let probesEnded = Counter()
            let acceptedWhileSaturated = FirstValue()
            let hogsEnd = Deadline(secondsFromNow: 20)
            let executor = runtime.executor
            let hogs = (0..<200).map { _ in
                Task(executorPreference: executor) {
                    while !hogsEnd.hasPassed && executor.admissionCounts.waiting + probesEnded.value < probes {
                        let spin = Deadline(secondsFromNow: 0.006)
                        while !spin.hasPassed {}
                        // Back into the queue as a probe's step comes back: resumed by the
                        // reactor. (Task.yield() may go round Swift's global pool, which other
                        // tests keep busy, so the queue here would not fill.)
                        _ = await runtime.reactor.sleep(until: Deadline(secondsFromNow: 0.0001))
                    }
                    acceptedWhileSaturated.keep(server.acceptedConnections)
                }
            }
            #expect(await eventually { executor.admissionCounts.oldestWaitSeconds > EngineExecutor.Admission.saturatedLag })
            let results = await withTaskGroup(of: ProbeResult.self) { group in
                for _ in 0..<probes {
                    group.addTask {
                        defer { probesEnded.increment() }
                        return await prober.probe(loopbackRequest(port: server.port, timeout: 10, http: true))
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            for hog in hogs { await hog.value }
            // No probe connected (its clock running) while its steps would have waited behind
            // the queue; each was held back and started once the threads caught up.
            #expect(acceptedWhileSaturated.value == 0)
            #expect(executor.admissionCounts.heldBack == probes)
            let failures = results.compactMap(\.failure)
            #expect(failures.isEmpty, "probes failed: \(failures.map { "\($0.kind): \($0.detail)" })")
            #expect(server.acceptedConnections == probes)
        }
        try await runtime.shutdown()
    }
}

/// The first value kept, from whichever task gets there first.
private final class FirstValue: Sendable {
    private let stored = Mutex<Int?>(nil)
    var value: Int? { stored.withLock { $0 } }
    func keep(_ value: Int) { stored.withLock { $0 = $0 ?? value } }
}

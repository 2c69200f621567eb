@testable import ATSEngine
import ATSProbe
import ATSTestServers
import Foundation
import Testing
import TLSFacts

/// An embedder's own `ProbeRuntime` (issue 26, item 3): the engine runs a target on it, and
/// `shutdown()` takes every thread it started away with it.
@Suite("Probe runtime", .timeLimit(.minutes(2)))
struct RuntimeEmbeddingTests {
    /// Threads named `prefix` in /proc/self/task, polled until `expected` or 5 s: a joined
    /// thread leaves the task list a few microseconds after pthread_join returns (the kernel
    /// wakes the joiner before it unlists the thread).
    static func threads(named prefix: String, reach expected: Int) async -> Int {
        let end = Date().addingTimeInterval(5)
        var count = ProbeRuntime.threadCount(namedWithPrefix: prefix)
        while count != expected && Date() < end {
            await Task.yield()  // never holding one of the few cooperative threads
            count = ProbeRuntime.threadCount(namedWithPrefix: prefix)
        }
        return count
    }

    @Test func anEmbeddersRuntimeRunsATargetAndShutsDownWithItsThreads() async throws {
        let host = try LoopbackHost()
        defer { host.stop() }
        let (server, root) = (host.server, host.rootPath)

        let prefix = "rt-embed"
        let before = await Self.threads(named: prefix, reach: 0)
        #expect(before == 0)
        let runtime = try ProbeRuntime(configuration: ProbeRuntime.Configuration(engineThreads: 3, descriptorSlots: 64, threadNamePrefix: prefix))
        // 3 engine threads, which poll the reactor among them (no reactor thread, issue 43;
        // c-ares runs on the reactor).
        #expect(await Self.threads(named: prefix, reach: 3) == 3)
        #expect(runtime.descriptorBudget.slots == 64)

        let prober = try Prober(options: ProbeOptions(caFile: root, useSystemTrustStore: false), runtime: runtime)
        // No speculative handshake (issue 43): one withdrawn late could still be accepted by the
        // server after the count below is taken.
        var options = DiagnosticsOptions(ruleSet: .current, timeout: 10)
        options.speculatesWidestOffer = false
        let runner = DiagnosticsRunner(prober: prober, options: options)
        let report = await runner.run(try Target(parsing: "https://127.0.0.1:\(server.port)/"))
        #expect(report.defaultPasses, "\(report.tests.first.map { "\($0.verdict)" } ?? "no test")")
        #expect(report.handshakes > 0 && server.completedHandshakes > 0)

        try await runtime.shutdown()
        #expect(runtime.isShutDown)
        #expect(await Self.threads(named: prefix, reach: 0) == 0, "the runtime's threads outlived its shutdown")

        // Afterwards a probe ends at once as cancelled, touching nothing.
        let accepted = server.acceptedConnections
        let late = await prober.probe(ProbeRequest(target: try Target(parsing: "127.0.0.1:\(server.port)"), offer: Prober.widestOffer))
        guard case .failure(let failure) = late else {
            Issue.record("a probe on a shut-down runtime ran: \(late)")
            return
        }
        #expect(failure.kind == .cancelled)
        #expect(server.acceptedConnections == accepted)
    }

    @Test func theSharedRuntimeIsNeverShutDown() async throws {
        let shared = try ProbeRuntime.shared
        await #expect(throws: ProbeRuntime.ShutdownError.sharedRuntime) { try await shared.shutdown() }
        #expect(!shared.isShutDown)
    }

    /// Shutting down while probes wait on a server that never answers ends them at once, as
    /// cancelled, rather than at their deadline.
    @Test func shutdownEndsProbesInFlight() async throws {
        let listener = try AuditLoopbackTests.SilentListener()
        let runtime = try ProbeRuntime(configuration: ProbeRuntime.Configuration(engineThreads: 2, descriptorSlots: 64, threadNamePrefix: "rt-drain"))
        let prober = try Prober(options: ProbeOptions(useSystemTrustStore: false), runtime: runtime)
        let request = ProbeRequest(target: try Target(parsing: "127.0.0.1:\(listener.port)"), offer: Prober.widestOffer, timeout: 60)
        let started = ContinuousClock.now
        async let results = withTaskGroup(of: ProbeResult.self) { group in
            for _ in 0..<8 { group.addTask { await prober.probe(request) } }
            return await group.reduce(into: [ProbeResult]()) { $0.append($1) }
        }
        // Bounded: the eight are in flight (each holds a handshake slot) before the shutdown.
        let end = Date().addingTimeInterval(20)
        while prober.handshakesInFlight < 8 && Date() < end { await Task.yield() }
        #expect(prober.handshakesInFlight == 8)
        try await runtime.shutdown()
        let finished = await results
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(finished.count == 8)
        #expect(finished.allSatisfy { if case .failure(let failure) = $0 { failure.kind == .cancelled } else { false } })
        #expect(await Self.threads(named: "rt-drain", reach: 0) == 0)
        _ = listener.acceptAll().map { close($0) }
    }
}

import Foundation
import Testing
@testable import ATSEngine
import ATSPolicy
import ATSProbe
import TLSFacts

/// The scheduler over the real engine, against a loopback server that accepts and never
/// answers: --concurrency bounds the handshakes in flight (the engine's own counter), and a
/// target's deadline cancels its handshakes and closes their sockets (the server reads EOF).
@Suite("Audit scheduler on loopback", .serialized, .timeLimit(.minutes(2)))
struct AuditLoopbackTests {
    /// A listening socket on 127.0.0.1 that the test accepts from itself, after the run: the
    /// kernel completes every TCP handshake into the backlog, and no ClientHello is ever
    /// answered. No thread of its own.
    final class SilentListener {
        let fd: Int32
        let port: Int

        init() throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0, listen(fd, 256) == 0 else {
                close(fd)
                throw POSIXError(.EADDRINUSE)
            }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            self.fd = fd
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        deinit { close(fd) }

        /// Every connection waiting in the backlog now.
        func acceptAll() -> [Int32] {
            var accepted: [Int32] = []
            while accepted.count < 10_000 {
                let connection = accept(fd, nil, nil)
                guard connection >= 0 else { break }
                accepted.append(connection)
            }
            return accepted
        }

        /// What the server side of `connection` reads first: the ClientHello's bytes are
        /// skipped; true when the stream then ends (EOF) within `seconds`.
        static func seesEndOfStream(_ connection: Int32, within seconds: Double) -> Bool {
            let end = Date().addingTimeInterval(seconds)
            var buffer = [UInt8](repeating: 0, count: 16_384)
            while Date() < end {
                var poll = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
                guard Glibc.poll(&poll, 1, Int32(max(1, end.timeIntervalSinceNow * 1000))) > 0 else { return false }
                let count = recv(connection, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if count == 0 { return true }
                if count < 0 && errno != EAGAIN && errno != EINTR { return false }
            }
            return false
        }
    }

    /// One real handshake per target: the smallest work that holds a socket.
    struct OneHandshake: AuditWork {
        let prober: Prober

        func audit(_ target: Target) async -> ProbeResult {
            await prober.probe(ProbeRequest(target: target, offer: Prober.widestOffer, timeout: 30))
        }

        func localFailure(of report: ProbeResult) -> ProbeFailure? {
            if case .failure(let failure) = report, failure.kind == .localResources { return failure }
            return nil
        }

        func admitted() async -> Bool { await prober.runtime.admit() }
        var stalledSeconds: Double { prober.runtime.stalledSeconds }
    }

    static let hangGuard = 60.0

    static func targets(_ count: Int, port: Int) -> [Target] {
        (0..<count).map { Target(host: "127.0.0.1", port: port, path: "/\($0)") }
    }

    /// `concurrency: 2`, six targets, each a handshake the server never answers: exactly two
    /// handshakes in flight at the peak, each cancelled at its 0.3 s deadline and reported as
    /// timed out, and every one of the six sockets closed by then.
    @Test func concurrencyBoundsHandshakesAndDeadlinesCloseSockets() async throws {
        let server = try SilentListener()
        let prober = try Prober(options: ProbeOptions(useSystemTrustStore: false))
        let limits = AuditLimits(concurrency: 2, perHost: 100, deadlineSeconds: 0.3)
        let scheduler = AuditScheduler(limits: limits, work: OneHandshake(prober: prober))
        let started = Date()
        var results: [AuditEvent<String, ProbeResult>] = []
        var timeline: [String] = []  // for the failure message: when each event came
        for await event in scheduler.results(for: jobs(Self.targets(6, port: server.port))) {
            timeline.append("\(event.kind) \(event.tag) \(Date().timeIntervalSince(started).fixed3)")
            if event.isResult { results.append(event) }
        }
        let elapsed = Date().timeIntervalSince(started)

        #expect(results.count == 6)
        #expect(results.allSatisfy { $0.kind == "timedOut" }, "\(results.map(\.kind))")
        #expect(prober.peakHandshakesInFlight == 2)
        #expect(prober.handshakesInFlight == 0, "a timed-out handshake is ended, not abandoned")
        // Three rounds of two, 0.3 s each at the least (all six at once would take 0.3 s). No
        // tight upper bound: in the full suite other tests hold Swift's cooperative pool for
        // seconds (measured: the first start 14 s late); the wall clock only guards a hang.
        #expect(elapsed >= 0.85 && elapsed < Self.hangGuard, "took \(elapsed) s: \(timeline)")
        let connections = server.acceptAll()
        defer { for connection in connections { close(connection) } }
        #expect(connections.count == 6, "one connection per target")
        for connection in connections {
            #expect(SilentListener.seesEndOfStream(connection, within: 2), "a cancelled handshake left its socket open")
        }
    }

    /// The audit's own work, nscurl's run: one target at a time (`concurrency: 1`) holds at most
    /// one target's distinct first-hop handshakes, and the deadline closes all of them.
    @Test func diagnosticsRunUnderTheSchedulerIsBoundedAndCancelled() async throws {
        let server = try SilentListener()
        let prober = try Prober(options: ProbeOptions(useSystemTrustStore: false))
        let runner = DiagnosticsRunner(prober: prober, options: DiagnosticsOptions(ruleSet: .current, timeout: 30))
        let targets = Self.targets(3, port: server.port)
        // What one target starts at once: its distinct first-hop offers (LoadCache shares the
        // rest) and the widest offer's, made with them in case no test completes one (issue 43).
        let tests = NSCurlMatrix.tests(host: targets[0].host) + NSCurlMatrix.supplementaryTests(host: targets[0].host)
        let perTarget = Set(tests.compactMap { runner.request(for: targets[0], under: $0.configuration) }).count + 1
        #expect(perTarget > 1)
        let scheduler = AuditScheduler(limits: AuditLimits(concurrency: 1, perHost: 100, deadlineSeconds: 0.3), work: runner)
        var results: [AuditEvent<String, DiagnosticsReport>] = []
        for await event in scheduler.results(for: jobs(targets)) where event.isResult {
            results.append(event)
        }

        #expect(results.map(\.kind) == ["timedOut", "timedOut", "timedOut"])
        #expect(prober.peakHandshakesInFlight <= perTarget, "peak \(prober.peakHandshakesInFlight), one target starts \(perTarget)")
        #expect(prober.peakHandshakesInFlight > 1, "a target's handshakes run together")
        #expect(prober.handshakesInFlight == 0)
        let connections = server.acceptAll()
        defer { for connection in connections { close(connection) } }
        #expect(connections.count == 3 * perTarget)
        for connection in connections {
            #expect(SilentListener.seesEndOfStream(connection, within: 2), "a cancelled handshake left its socket open")
        }
    }

    /// A run of one target whose server accepts and never answers, started and awaited until
    /// every first-hop handshake of the target is in flight (bounded by the hang guard), so the
    /// caller can cut it (cancel the run, shut the runtime down) while they wait.
    struct CutRun {
        let run: Task<Void, Never>
        let events: EventRecorder<DiagnosticsReport>
        let started: Date
        let perTarget: Int

        /// The results reported, a finished target shown with its verdict.
        var described: [String] {
            events.all.filter(\.isResult).map { event -> String in
                if case .finished(_, _, let report) = event { return "finished, verdict \(AuditVerdict(report).rawValue)" }
                return event.kind
            }
        }
    }

    static func startCutRun(server: SilentListener, prober: Prober, deadline: Double) async -> CutRun {
        let runner = DiagnosticsRunner(prober: prober, options: DiagnosticsOptions(ruleSet: .current, timeout: 30))
        let targets = Self.targets(1, port: server.port)
        let tests = NSCurlMatrix.tests(host: targets[0].host) + NSCurlMatrix.supplementaryTests(host: targets[0].host)
        // With the widest offer's, made with them (issue 43).
        let perTarget = Set(tests.compactMap { runner.request(for: targets[0], under: $0.configuration) }).count + 1
        let scheduler = AuditScheduler(limits: AuditLimits(concurrency: 1, perHost: 100, deadlineSeconds: deadline), work: runner)
        let events = EventRecorder<DiagnosticsReport>()
        let started = Date()
        let run = Task { await scheduler.run(jobs(targets)) { events.record($0) } }
        let end = Date().addingTimeInterval(Self.hangGuard)
        while prober.handshakesInFlight < perTarget && Date() < end { await Task.yield() }
        #expect(prober.handshakesInFlight == perTarget)
        return CutRun(run: run, events: events, started: started, perTarget: perTarget)
    }

    /// The run is cancelled (`audit` on SIGTERM) while a target's handshakes wait on a server
    /// that has not answered yet: the handshakes end at once as cancelled, their sockets are
    /// closed, and the target reports nothing. The engine's report of that run is made of
    /// cancelled handshakes; judged, it would be a verdict about a server that was never heard
    /// (issue 24: good servers written as "exception" during a SIGTERM soak run).
    /// With a deadline (`audit`) and without one (`diagnose`, `runInOrder`).
    @Test(arguments: [60.0, Double.infinity])
    func aCancelledRunJudgesNoTargetItCut(deadline: Double) async throws {
        let server = try SilentListener()
        let prober = try Prober(options: ProbeOptions(useSystemTrustStore: false))
        let cut = await Self.startCutRun(server: server, prober: prober, deadline: deadline)
        let perTarget = cut.perTarget
        cut.run.cancel()
        await cut.run.value
        let elapsed = Date().timeIntervalSince(cut.started)

        #expect(cut.described.isEmpty, "a cut target was reported: \(cut.described)")
        #expect(cut.events.all.map(\.kind) == ["started"])
        #expect(prober.handshakesInFlight == 0)
        #expect(elapsed < 30, "ended by the cancel, not by the handshakes' 30 s timeout: \(elapsed) s")
        let connections = server.acceptAll()
        defer { for connection in connections { close(connection) } }
        // A handshake holds its slot from before its connect(), so the cancel may come first.
        #expect(connections.count <= perTarget)
        for connection in connections {
            #expect(SilentListener.seesEndOfStream(connection, within: 2), "a cancelled handshake left its socket open")
        }
    }

    /// The probe runtime is shut down under a run that goes on (an embedder stopping its runtime
    /// first): the target's handshakes end at once as cancelled, and the target is a local
    /// failure naming that, never a verdict drawn from loads that were cut short.
    @Test func aRuntimeShutDownUnderARunGivesNoVerdict() async throws {
        let server = try SilentListener()
        let runtime = try ProbeRuntime(configuration: ProbeRuntime.Configuration(engineThreads: 2, descriptorSlots: 64, threadNamePrefix: "rt-cut"))
        let prober = try Prober(options: ProbeOptions(useSystemTrustStore: false), runtime: runtime)
        let cut = await Self.startCutRun(server: server, prober: prober, deadline: 60)
        try await runtime.shutdown()
        await cut.run.value
        #expect(Date().timeIntervalSince(cut.started) < 30, "ended by the shutdown, not by the handshakes' 30 s timeout")

        #expect(cut.described == ["failedLocally"])
        if case .failedLocally(_, _, let failure)? = cut.events.all.first(where: \.isResult) { #expect(failure.kind == .cancelled) }
        _ = server.acceptAll().map { close($0) }
    }
}

extension Double {
    var fixed3: String { String(format: "%.3f", self) }
}

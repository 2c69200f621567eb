import Foundation
import Testing
@testable import ATSProbe
import ATSTestServers
import TLSFacts
import TestSupport

/// The c-ares resolver against a DNS server this test starts on 127.0.0.1 (never the
/// machine's resolv.conf): answers, caching, deadlines, failures told apart, hostile answers.
@Suite("Resolver")
struct ResolverTests {
    static let names: [String: LoopbackDNSServer.Behavior] = [
        "ok.test": .answer(v4: ["127.0.0.1"]),
        "both.test": .answer(v4: ["127.0.0.1"], v6: ["::1"]),
        "short.test": .answer(v4: ["127.0.0.1"], ttl: 0),
        "late.test": .answer(v4: ["127.0.0.1"], delay: 0.6),
        "slow.test": .servfail(delay: 30),
        "never.test": .never,
        "gone.test": .nxdomain(),
        "broken.test": .servfail(),
        "big.test": .truncated(v4: ["127.0.0.1"]),
        "garbage.test": .garbage,
        "cut.test": .cutShort(v4: ["127.0.0.1"]),
        "liar.test": .lyingCounts,
    ]

    /// A server and a resolver that asks only it; both end with the block. The block runs on
    /// the engine's threads, as a probe does: its own steps (an `async let` starting, the clock
    /// read after an await) must not queue behind the rest of the suite on the cooperative
    /// pool, or the timings it checks are the pool's, not the resolver's. A caller on a busy
    /// executor is `aBusyCallerExecutorDoesNotHoldTheLookup`.
    func withResolver<T: Sendable>(_ body: @Sendable (LoopbackDNSServer, Resolver) async throws -> T) async throws -> T {
        let server = try LoopbackDNSServer(names: Self.names)
        defer { server.stop() }
        let resolver = try Resolver(reactor: ProbeRuntime.shared.reactor, executor: ProbeRuntime.shared.executor, servers: server.address)
        return try await withTaskExecutorPreference(ProbeRuntime.shared.executor) { try await body(server, resolver) }
    }

    @Test func answersAndCachesForTheTTL() async throws {
        try await withResolver { server, resolver in
            let answer = await resolver.lookup("ok.test", family: .v4, deadline: Deadline(secondsFromNow: 5))
            #expect((try? answer.get())?.map(\.text) == ["127.0.0.1"])
            #expect(await resolver.lookup("OK.test", family: .v4, deadline: Deadline(secondsFromNow: 5)).isSuccess)
            #expect(server.queries(for: "ok.test") == 1, "a second ask within the TTL is answered from the cache")
            // TTL 0: asked again.
            _ = await resolver.lookup("short.test", family: .v4, deadline: Deadline(secondsFromNow: 5))
            _ = await resolver.lookup("short.test", family: .v4, deadline: Deadline(secondsFromNow: 5))
            #expect(server.queries(for: "short.test") == 2)
            // AAAA for a name with only A: no record, not "does not exist".
            #expect(await resolver.lookup("ok.test", family: .v6, deadline: Deadline(secondsFromNow: 5)).failure == .noRecord)
            #expect((try? await resolver.lookup("both.test", family: .v6, deadline: Deadline(secondsFromNow: 5)).get())?.map(\.text) == ["::1"])
        }
    }

    @Test func failuresAreToldApartAndCached() async throws {
        try await withResolver { server, resolver in
            let deadline = Deadline(secondsFromNow: 5)
            #expect(await resolver.lookup("gone.test", family: .v4, deadline: deadline).failure == .doesNotExist)
            #expect(await resolver.lookup("gone.test", family: .v4, deadline: deadline).failure == .doesNotExist)
            #expect(server.queries(for: "gone.test") == 1, "NXDOMAIN is remembered for the run")
            let broken = await resolver.lookup("broken.test", family: .v4, deadline: deadline).failure
            guard case .serverFailure(let reason)? = broken else {
                Issue.record("SERVFAIL is a server failure, got \(String(describing: broken))")
                return
            }
            #expect(reason.contains("SERVFAIL"))
        }
    }

    /// A name that never answers costs its own deadline and nothing else: a healthy name asked
    /// at the same time answers at once, and a late answer arrives for a caller who waits.
    @Test func aSlowNameNeverHoldsAnother() async throws {
        try await withResolver { _, resolver in
            let start = Date()
            let slowDeadline = Deadline(secondsFromNow: 3)
            async let silent = resolver.lookup("never.test", family: .v4, deadline: slowDeadline)
            async let slow = resolver.lookup("slow.test", family: .v4, deadline: slowDeadline)
            async let late = resolver.lookup("late.test", family: .v4, deadline: Deadline(secondsFromNow: 8))
            let healthy = await resolver.lookup("ok.test", family: .v4, deadline: Deadline(secondsFromNow: 8))
            #expect(healthy.isSuccess)
            #expect(!slowDeadline.hasPassed, "the healthy name waited for the slow ones")
            #expect(await late.isSuccess)
            for failure in [await silent.failure, await slow.failure] {
                guard case .timedOut(let seconds)? = failure else {
                    Issue.record("expected a timeout, got \(String(describing: failure))")
                    continue
                }
                #expect(seconds > 2.8 && seconds < 4)
            }
            #expect(Date().timeIntervalSince(start) < 6, "the slow names outlived their deadline")
        }
    }

    /// A caller whose deadline passed leaves; the query goes on, and a caller with time to
    /// spare gets its answer.
    @Test func aCallerThatGivesUpLeavesTheQueryForTheNext() async throws {
        try await withResolver { server, resolver in
            let first = await resolver.lookup("late.test", family: .v4, deadline: Deadline(secondsFromNow: 0.2))
            #expect(first.isTimeout)
            let second = await resolver.lookup("late.test", family: .v4, deadline: Deadline(secondsFromNow: 5))
            #expect(second.isSuccess)
            #expect(server.queries(for: "late.test") == 1, "the second caller joined the query in flight")
        }
    }

    @Test func truncatedAnswersAreAskedAgainOverTCP() async throws {
        try await withResolver { server, resolver in
            let answer = await resolver.lookup("big.test", family: .v4, deadline: Deadline(secondsFromNow: 5))
            #expect((try? answer.get())?.map(\.text) == ["127.0.0.1"])
            #expect(server.tcpQueries >= 1)
        }
    }

    /// Garbage, a record cut short, counts that lie and a pointer loop: each ends as a failure
    /// by the deadline, never a crash or a hang, and the resolver goes on answering.
    @Test func hostileAnswersEndInTime() async throws {
        try await withResolver { _, resolver in
            let start = Date()
            for name in ["garbage.test", "cut.test", "liar.test"] {
                let answer = await resolver.lookup(name, family: .v4, deadline: Deadline(secondsFromNow: 1))
                if case .success(let addresses) = answer {
                    // A parser may take the one well-formed record of the lying answer.
                    #expect(name == "liar.test" && addresses.map(\.text) == ["127.0.0.1"], "\(name): \(addresses.map(\.text))")
                }
            }
            #expect(Date().timeIntervalSince(start) < 5)
            #expect(await resolver.lookup("ok.test", family: .v4, deadline: Deadline(secondsFromNow: 5)).isSuccess)
        }
    }

    /// A name from this machine's hosts file (not localhost, which never reaches c-ares), if it
    /// has one: the tests read /etc/hosts, never write it.
    static let hostsFileName: String? = {
        guard let text = try? String(contentsOfFile: "/etc/hosts", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 2, !fields[0].hasPrefix("#"), fields[0].contains("."), !fields[0].contains(":") else { continue }
            if let name = fields.dropFirst().first(where: { $0 != "localhost" && !$0.hasSuffix(".localhost") && !$0.hasPrefix("#") }) {
                return String(name)
            }
        }
        return nil
    }()

    /// c-ares gives a hosts-file answer a TTL of 0; it is kept for `Resolver.hostsFileTTL`, so a
    /// target's probes share one reading of the file (the bench's 10,000-line file was read twice
    /// per connection before, and the readings queued past the lookups' deadlines).
    @Test func aHostsFileAnswerServesTheNextSecond() async throws {
        guard try RequiredTool.condition(Self.hostsFileName != nil, "no name but localhost in /etc/hosts",
                                         for: "aHostsFileAnswerServesTheNextSecond") else { return }
        let name = try #require(Self.hostsFileName)
        try await withResolver { server, resolver in
            let deadline = Deadline(secondsFromNow: 5)
            #expect(await resolver.lookup(name, family: .v4, deadline: deadline).isSuccess)
            let started = resolver.queriesStarted
            #expect(await resolver.lookup(name, family: .v4, deadline: deadline).isSuccess)
            #expect(resolver.queriesStarted == started, "answered from the cache, not the file again")
            #expect(server.queries(for: name) == 0)
        }
    }

    @Test func localhostNeverReachesDNS() async throws {
        try await withResolver { server, resolver in
            let answer = await resolver.lookup("localhost", family: .v4, deadline: Deadline(secondsFromNow: 5))
            #expect((try? answer.get())?.map(\.text) == ["127.0.0.1"])
            _ = await resolver.lookup("api.localhost", family: .v6, deadline: Deadline(secondsFromNow: 5))
            #expect(server.queries == 0)
        }
    }

    /// The caller's executor busy past the deadline (a cooperative pool full of other work, as
    /// under the whole test suite on two cores) must not stop a lookup: the query goes out and
    /// the answer is settled on the engine's threads, the caller only picks it up late. Before,
    /// the lookup's own waits ran on the caller's executor: no query was even sent until it was
    /// free, and a name answered at once came back "timed out".
    @Test func aBusyCallerExecutorDoesNotHoldTheLookup() async throws {
        let server = try LoopbackDNSServer(names: Self.names)
        defer { server.stop() }
        let resolver = try Resolver(reactor: ProbeRuntime.shared.reactor, executor: ProbeRuntime.shared.executor, servers: server.address)
        let busy = HeldExecutor()
        defer { busy.finish() }
        let deadline = Deadline(secondsFromNow: 2)
        let lookup = Task(executorPreference: busy) {
            await resolver.lookup("ok.test", family: .v4, deadline: deadline)
        }
        // The caller's executor stays busy until half a second after the deadline.
        _ = await ProbeRuntime.shared.reactor.sleep(until: Deadline(secondsFromNow: 2.5))
        #expect(server.queries(for: "ok.test") == 1, "the query waited for the caller's executor")
        busy.open()
        let answer = await lookup.value
        #expect((try? answer.get())?.map(\.text) == ["127.0.0.1"], "\(answer)")
    }

    @Test func unusableServerListsAreRefused() {
        #expect(throws: ResolverSetupError.self) { try Resolver(reactor: ProbeRuntime.shared.reactor, executor: ProbeRuntime.shared.executor, servers: "not-an-address") }
    }

    /// Through the prober: a name that resolves is probed, and the three ways a name can fail
    /// read differently: does not exist, not resolved in time, server failure.
    @Test func proberUsesTheGivenServers() async throws {
        let server = try LoopbackDNSServer(names: Self.names)
        defer { server.stop() }
        let fixture = try ProbeFixture()
        let prober = try Prober(options: ProbeOptions(caFile: fixture.rootPath, useSystemTrustStore: false,
                                                      dnsServers: server.address))
        let configuration = TLSServerConfiguration(identity: try fixture.pki.issue(CertificateSpec(dnsNames: ["ok.test"])))
        try await TestTLSServer.serving(configuration) { tls in
            let ok = await prober.probe(loopbackRequest(port: tls.port, host: "ok.test"))
            #expect(ok.failure == nil, "\(String(describing: ok.failure))")
            let gone = await prober.probe(loopbackRequest(port: tls.port, host: "gone.test")).failure
            #expect(gone?.kind == .nameNotResolved)
            #expect(gone?.detail == "gone.test does not exist (NXDOMAIN)")
            let never = await prober.probe(loopbackRequest(port: tls.port, host: "never.test", timeout: 1)).failure
            #expect(never?.kind == .nameResolutionTimeout)
            // N is what the lookup waited, at most the 1 s timeout (less when the probe's clock
            // started earlier on a loaded machine).
            let prefix = "never.test: name not resolved within "
            #expect(never?.detail.hasPrefix(prefix) == true, "\(never?.detail ?? "nil")")
            let waited = never.flatMap { Double($0.detail.dropFirst(prefix.count).dropLast(2)) }
            #expect(waited.map { $0 > 0.5 && $0 <= 1 } == true, "\(never?.detail ?? "nil")")
            #expect(never?.isUnreachable == true)
            let broken = await prober.probe(loopbackRequest(port: tls.port, host: "broken.test")).failure
            #expect(broken?.kind == .nameNotResolved)
            #expect(broken?.detail.contains("SERVFAIL") == true)
        }
    }

    /// Happy Eyeballs takes addresses as they come: with AAAA pointing at a port nobody listens
    /// on and A at the server, the connection is made over IPv4.
    @Test func happyEyeballsUsesBothFamilies() async throws {
        let fixture = try ProbeFixture()
        let configuration = TLSServerConfiguration(identity: try fixture.pki.issue(CertificateSpec(dnsNames: ["both.test"])))
        try await TestTLSServer.serving(configuration) { tls in
            let server = try LoopbackDNSServer(names: ["both.test": .answer(v4: ["127.0.0.1"], v6: ["::1"])])
            defer { server.stop() }
            let prober = try Prober(options: ProbeOptions(caFile: fixture.rootPath, useSystemTrustStore: false,
                                                          dnsServers: server.address))
            let result = await prober.probe(loopbackRequest(port: tls.port, host: "both.test"))
            #expect(result.failure == nil, "\(String(describing: result.failure))")
            #expect(server.queries(for: "both.test") == 2, "A and AAAA both asked")
        }
    }
}

extension Result {
    var isSuccess: Bool { if case .success = self { true } else { false } }
}

extension Result where Failure == Resolver.LookupFailure {
    var isTimeout: Bool { if case .failure(.timedOut) = self { true } else { false } }
}

/// A task executor with one thread that runs the first job it is given (a task's start) and
/// holds every later one until `open()`: a caller's executor that is busy elsewhere for as
/// long as the test says.
final class HeldExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []  // guarded by condition
    private var mayRun = 1
    private var isOpen = false
    private var isFinished = false

    init() {
        let thread = Thread { [self] in work() }
        thread.name = "held-executor"
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    func open() {
        condition.lock()
        isOpen = true
        condition.signal()
        condition.unlock()
    }

    /// Opens, runs what is queued, and ends the thread.
    func finish() {
        condition.lock()
        isOpen = true
        isFinished = true
        condition.signal()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while !(isFinished && jobs.isEmpty) && (jobs.isEmpty || (!isOpen && mayRun == 0)) { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            if mayRun > 0 { mayRun -= 1 }
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

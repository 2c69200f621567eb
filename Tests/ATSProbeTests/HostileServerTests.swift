import Foundation
import Testing
import ATSPolicy
@testable import ATSProbe
import ATSTestServers
import TLSFacts

/// Servers that misbehave on purpose (docs/robustness.md): every probe ends with the documented
/// outcome, by its deadline, and nothing the server sends reaches the next request line.
@Suite("Hostile servers")
struct HostileServerTests {
    static let timeout = 2.0
    /// Deadlines are asserted with the time the probe measured on its own thread
    /// (`elapsedMilliseconds`) or by the outcome only a deadline produces ("timed out"): the
    /// wall clock around an `await` also counts the time other tests hold Swift's cooperative
    /// pool. The wall clock only guards against a hang.
    static let hangGuard = 60.0

    /// Runs CPU-heavy setup (a certificate with 10,000 names, a ladder of 50) on a thread of its
    /// own: on Swift's cooperative pool (a thread per core) it would stall every other test's
    /// probes and stretch their measured deadlines.
    static func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }

    /// Runs `body` and returns its value with the seconds it took.
    static func timed<T>(_ body: () async throws -> T) async rethrows -> (T, Double) {
        let start = Date()
        let value = try await body()
        return (value, Date().timeIntervalSince(start))
    }

    // MARK: Row 10: a server that spoke TLS, then broke it

    @Test func oversizedCertificateMessageIsAProtocolViolation() async throws {
        let fixture = try ProbeFixture()
        // 10,000 names: a certificate message far past OpenSSL's 100 KiB bound.
        let names = (0..<10_000).map { "n\($0).example.test" }
        let pki = fixture.pki
        let identity = try await Self.offPool { try pki.issue(CertificateSpec(dnsNames: ["localhost"] + names)) }
        let (result, seconds) = try await fixture.withServer(TLSServerConfiguration(identity: identity)) { server in
            await Self.timed { await fixture.prober.probe(loopbackRequest(port: server.port, timeout: 5)) }
        }
        let failure = try #require(result.failure)
        #expect(failure.kind == .protocolViolation, "\(failure)")
        #expect(failure.spokeTLS && !failure.isUnreachable)
        #expect(failure.elapsedMilliseconds < 5_000, "measured on the probe's own thread")
        #expect(seconds < Self.hangGuard)
    }

    @Test func floodOfWarningAlertsIsAProtocolViolation() async throws {
        let server = try HostileServer.start(.warningAlerts(64))
        defer { server.stop() }
        let prober = try Prober(options: ProbeOptions(useSystemTrustStore: false))
        let result = await prober.probe(loopbackRequest(port: server.port, timeout: Self.timeout))
        let failure = try #require(result.failure)
        #expect(failure.kind == .protocolViolation, "\(failure)")
        #expect(failure.spokeTLS)
    }

    // MARK: Row 11: a head trickled past the deadline

    @Test func headTrickledPastTheDeadlineIsATimeout() async throws {
        let fixture = try ProbeFixture()
        let head = Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".utf8)
        let configuration = TLSServerConfiguration(identity: try fixture.pki.issue(CertificateSpec()),
                                                   http: .trickle(head, intervalMilliseconds: 250))
        try await fixture.withServer(configuration) { server in
            let (result, seconds) = await Self.timed {
                await fixture.prober.probe(loopbackRequest(port: server.port, timeout: 1, http: true))
            }
            let http = try #require(result.observation?.http)
            #expect(http.statusCode == nil)
            // "timed out" is written only when the probe's deadline fired.
            #expect(http.failure?.hasPrefix("timed out") == true, "\(http.failure ?? "nil")")
            #expect(seconds < Self.hangGuard)
        }
    }

    // MARK: Row 13: a long valid chain

    @Test func fiftyOneCertificateChainIsShownAndTrustedWhole() async throws {
        let fixture = try ProbeFixture()
        let pki = fixture.pki
        let identity = try await Self.offPool { try pki.issueUnderLadder(depth: 50, CertificateSpec()) }
        try await fixture.withServer(TLSServerConfiguration(identity: identity)) { server in
            let observation = try await fixture.prober.probe(loopbackRequest(port: server.port)).get()
            #expect(observation.chain.count == 51)
            #expect(observation.trust.isTrusted, "\(observation.trust)")
            #expect(observation.trust.anchor == .user, "the chain ends at the --ca-file root, 52 certificates up")
        }
    }

    // MARK: Row 4: local exhaustion is never the server's fault

    @Test func descriptorExhaustionIsALocalFailure() {
        var address = TCPConnection.Address(storage: sockaddr_storage(), length: 0, family: AF_INET, text: "127.0.0.1")
        address.text = "127.0.0.1"
        for code in [EMFILE, ENFILE, ENOMEM, ENOBUFS] {
            #expect(TCPConnection.failure(errno: code, address: address, port: 443).kind == .localResources)
        }
        #expect(TCPConnection.failure(errno: ECONNREFUSED, address: address, port: 443).kind == .connectionRefused)
    }

    @Test func descriptorBudgetQueuesPastItsSlots() async {
        let budget = DescriptorBudget(slots: 2)
        let inside = Counter(), peak = PeakCounter()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    await budget.acquire()
                    peak.enter()
                    try? await Task.sleep(for: .milliseconds(5))
                    peak.leave()
                    inside.increment()
                    budget.release()
                }
            }
        }
        #expect(inside.value == 20)
        #expect(peak.highest <= 2)
    }

    // MARK: The rest of the battery

    @Test func slowlorisHandshakeEndsAtTheDeadline() async throws {
        let server = try HostileServer.start(.slowHandshake(intervalMilliseconds: 100))
        defer { server.stop() }
        let prober = try Prober(options: ProbeOptions(useSystemTrustStore: false))
        let (result, seconds) = await Self.timed { await prober.probe(loopbackRequest(port: server.port, timeout: 1)) }
        #expect(result.failure?.kind == .handshakeTimeout, "\(String(describing: result.failure))")
        #expect((result.failure?.elapsedMilliseconds ?? .infinity) < 1_500, "the deadline, measured on the probe's own thread")
        #expect(seconds < Self.hangGuard)
    }

    @Test func endlessHeadersAndBodiesAreCutAtTheirBound() async throws {
        let fixture = try ProbeFixture()
        let identity = try fixture.pki.issue(CertificateSpec())
        try await fixture.withServer(TLSServerConfiguration(identity: identity, http: .endlessHeaders)) { server in
            let (result, seconds) = await Self.timed {
                await fixture.prober.probe(loopbackRequest(port: server.port, timeout: Self.timeout, http: true))
            }
            let http = try #require(result.observation?.http)
            #expect(http.statusCode == 200)
            #expect(http.failure == "response head incomplete")
            #expect(seconds < Self.hangGuard)
        }
        try await fixture.withServer(TLSServerConfiguration(identity: identity, http: .endlessBody)) { server in
            let (result, seconds) = await Self.timed {
                await fixture.prober.probe(loopbackRequest(port: server.port, timeout: Self.timeout, http: true))
            }
            let http = try #require(result.observation?.http)
            #expect(http.statusCode == 200)
            #expect(http.failure == nil)
            #expect(seconds < Self.hangGuard)
        }
    }

    /// OpenSSL's client refuses renegotiation by default? No: it accepts a secure one. Either
    /// way the probe ends by its deadline with the handshake it made.
    @Test func renegotiationRequestEndsByTheDeadline() async throws {
        let fixture = try ProbeFixture()
        let configuration = TLSServerConfiguration(identity: try fixture.pki.issue(CertificateSpec()), maxVersion: .tls12,
                                                   http: .renegotiate(then: .ok))
        try await fixture.withServer(configuration) { server in
            let (result, seconds) = await Self.timed {
                await fixture.prober.probe(loopbackRequest(port: server.port, timeout: Self.timeout, http: true))
            }
            let observation = try #require(result.observation, "the first handshake completed")
            #expect(observation.protocolVersion == .tls12)
            #expect(observation.http?.statusCode == 200 || observation.http?.failure != nil)
            #expect(seconds < Self.hangGuard)
        }
    }

    @Test func clientCertificateRequestIsAnsweredWithoutOne() async throws {
        let fixture = try ProbeFixture()
        var configuration = TLSServerConfiguration(identity: try fixture.pki.issue(CertificateSpec()))
        configuration.requestClientCertificate = true
        for version in [TLSVersion.tls12, .tls13] {
            configuration.maxVersion = version
            configuration.minVersion = version
            try await fixture.withServer(configuration) { server in
                let observation = try await fixture.prober.probe(loopbackRequest(port: server.port, http: true)).get()
                #expect(observation.protocolVersion == version)
                #expect(observation.http?.statusCode == 200)
            }
        }
    }

    @Test(arguments: [HostileBehavior.resetOnAccept, .resetAfterClientHello])
    func resetsEndTheProbeAsResets(behavior: HostileBehavior) async throws {
        let server = try HostileServer.start(behavior)
        defer { server.stop() }
        let prober = try Prober(options: ProbeOptions(useSystemTrustStore: false))
        let (result, seconds) = await Self.timed { await prober.probe(loopbackRequest(port: server.port, timeout: Self.timeout)) }
        let kind = try #require(result.failure?.kind)
        #expect([.resetDuringHandshake, .closedDuringHandshake].contains(kind), "\(kind)")
        #expect((result.failure?.elapsedMilliseconds ?? .infinity) < Self.timeout * 1000)
        #expect(seconds < Self.hangGuard)
    }

    @Test func resetDuringTheResponseKeepsTheHandshake() async throws {
        let fixture = try ProbeFixture()
        let configuration = TLSServerConfiguration(identity: try fixture.pki.issue(CertificateSpec()), http: .reset)
        try await fixture.withServer(configuration) { server in
            let observation = try await fixture.prober.probe(loopbackRequest(port: server.port, timeout: Self.timeout, http: true)).get()
            #expect(observation.http?.statusCode == nil)
            #expect(observation.http?.failure != nil)
        }
    }

    /// A name with several addresses, the first refusing: the next one answers.
    @Test func severalAddressesSomeRefusing() async throws {
        let fixture = try ProbeFixture()
        try await fixture.withServer(TLSServerConfiguration(identity: try fixture.pki.issue(CertificateSpec()))) { server in
            // 127.0.0.2 has nothing listening on the server's port (it is bound to 127.0.0.1 only).
            let refusing = try TCPConnection.numericAddresses(host: "127.0.0.2", port: server.port)
            let answering = try TCPConnection.numericAddresses(host: "127.0.0.1", port: server.port)
            let connection = try await (try ProbeRuntime.shared).binding { try await TCPConnection.connect(addresses: refusing + refusing + answering, port: server.port,
                                                             deadline: Deadline(secondsFromNow: Self.timeout)) }
            #expect(connection.peerAddress == "127.0.0.1")
            await #expect(throws: ProbeFailure.self) {
                try await (try ProbeRuntime.shared).binding { try await TCPConnection.connect(addresses: refusing, port: server.port, deadline: Deadline(secondsFromNow: Self.timeout)) }
            }
        }
    }
}

/// The most tasks inside at once.
final class PeakCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var current = 0
    private(set) var highest = 0
    func enter() { lock.withLock { current += 1; highest = max(highest, current) } }
    func leave() { lock.withLock { current -= 1 } }
}

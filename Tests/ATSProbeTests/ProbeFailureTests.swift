import Foundation
import Testing
import ATSProbe
import ATSTestServers
import TLSFacts

/// Handshakes that fail, typed by what went wrong.
@Suite("Probe failures")
struct ProbeFailureTests {
    private func probeHostile(_ behavior: HostileBehavior, timeout: Double = 5) async throws -> ProbeFailure? {
        let prober = try Prober(options: ProbeOptions(useSystemTrustStore: false))
        let server = try HostileServer.start(behavior)
        defer { server.stop() }
        return await prober.probe(loopbackRequest(port: server.port, timeout: timeout)).failure
    }

    @Test func plainHTTPIsNotTLS() async throws {
        let failure = try await probeHostile(.plainHTTP)
        #expect(failure?.kind == .notTLS)
        #expect(failure?.detail.contains("HTTP/") == true)
    }

    @Test func garbageIsNotTLS() async throws {
        #expect(try await probeHostile(.garbage)?.kind == .notTLS)
    }

    @Test func closedPortIsRefused() async throws {
        let prober = try Prober(options: ProbeOptions(useSystemTrustStore: false))
        let failure = await prober.probe(loopbackRequest(port: try unusedLoopbackPort())).failure
        #expect(failure?.kind == .connectionRefused)
        #expect(failure?.isUnreachable == true)
    }

    @Test func silentServerTimesOutOnTime() async throws {
        let prober = try Prober(options: ProbeOptions(useSystemTrustStore: false))
        let server = try HostileServer.start(.silent)
        defer { server.stop() }
        let started = Date()
        let failure = await prober.probe(loopbackRequest(port: server.port, timeout: 1)).failure
        let elapsed = Date().timeIntervalSince(started)
        #expect(failure?.kind == .handshakeTimeout)
        // The engine's own clock, from the call to the failure: within timeout + 1 s.
        #expect((900..<2000).contains(failure?.elapsedMilliseconds ?? -1))
        // Wall clock as the caller sees it. Resuming the awaiting test needs a cooperative thread,
        // and other tests generate RSA keys on that (two-thread) pool, so only "did not hang" is
        // asserted here (the machine may be loaded: CI shares two cores); the engine's bound is
        // the assertion above.
        #expect(elapsed >= 0.9 && elapsed < 60)
    }

    @Test func resetOnAccept() async throws {
        let failure = try await probeHostile(.resetOnAccept)
        #expect(failure?.kind == .resetDuringHandshake, "\(String(describing: failure))")
    }

    @Test func closeAfterClientHello() async throws {
        #expect(try await probeHostile(.closeAfterClientHello)?.kind == .closedDuringHandshake)
    }

    @Test(arguments: [(UInt8(40), ProbeFailure.Kind.noSharedCipher), (71, .noSharedCipher), (70, .noSharedProtocol), (80, .tlsAlert)])
    func alertFromServer(code: UInt8, kind: ProbeFailure.Kind) async throws {
        let failure = try await probeHostile(.tlsAlert(code))
        #expect(failure?.kind == kind)
        #expect(failure?.alert == TLSAlert(code: code))
    }

    /// A real server and a real mismatch: TLS 1.3 only against a TLS 1.2 offer, and the reverse.
    @Test func noSharedProtocolWithRealServer() async throws {
        let fixture = try ProbeFixture()
        let onlyTLS13 = try await fixture.probe(offer: offer(.tls12, .tls12)) {
            $0.minVersion = .tls13
        }
        #expect(onlyTLS13.failure?.kind == .noSharedProtocol)
        #expect(onlyTLS13.failure?.alert == .protocolVersion)

        let onlyTLS12 = try await fixture.probe(offer: offer(.tls13, .tls13)) {
            $0.maxVersion = .tls12
        }
        #expect(onlyTLS12.failure?.kind == .noSharedProtocol)
    }

    @Test func noSharedCipherWithRealServer() async throws {
        let fixture = try ProbeFixture()
        let result = try await fixture.probe(CertificateSpec(key: .rsa(bits: 2048)), offer: offer(.tls12, .tls12, [0x009C])) {
            $0.maxVersion = .tls12
            $0.cipherList = "ECDHE-RSA-AES128-GCM-SHA256"
        }
        #expect(result.failure?.kind == .noSharedCipher)
        #expect(result.failure?.alert == .handshakeFailure)
    }
}

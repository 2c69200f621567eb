import Foundation
import Testing
import ATSProbe
import ATSTestServers
import TLSFacts

/// The GET after the handshake, and scheduling many probes.
@Suite("Probe HTTP and scheduling")
struct ProbeHTTPTests {
    @Test func getRecordsStatus() async throws {
        let fixture = try ProbeFixture()
        let identity = try fixture.pki.issue(CertificateSpec())
        try await fixture.withServer(TLSServerConfiguration(identity: identity, http: .status(404))) { server in
            let observation = try await fixture.prober.probe(loopbackRequest(port: server.port, http: true)).get()
            #expect(observation.http?.statusCode == 404)
            #expect(observation.http?.reason == "Not Found")
            #expect(observation.http?.failure == nil)
        }
    }

    @Test func redirectLocation() async throws {
        let fixture = try ProbeFixture()
        let identity = try fixture.pki.issue(CertificateSpec())
        let location = "https://www.example.test/next?x=1"
        try await fixture.withServer(TLSServerConfiguration(identity: identity, http: .redirect(to: location))) { server in
            let observation = try await fixture.prober.probe(loopbackRequest(port: server.port, http: true)).get()
            #expect(observation.http?.statusCode == 301)
            #expect(observation.http?.location == location)
        }
    }

    @Test func noResponseIsRecordedAsFailure() async throws {
        let fixture = try ProbeFixture()
        let identity = try fixture.pki.issue(CertificateSpec())
        try await fixture.withServer(TLSServerConfiguration(identity: identity, http: .noResponse)) { server in
            let observation = try await fixture.prober.probe(loopbackRequest(port: server.port, http: true)).get()
            #expect(observation.http?.statusCode == nil)
            #expect(observation.http?.failure != nil)
        }
    }

    @Test func probeAllMakesEachDistinctRequestOnce() async throws {
        let fixture = try ProbeFixture()
        let identity = try fixture.pki.issue(CertificateSpec(key: .rsa(bits: 2048)))
        try await fixture.withServer(TLSServerConfiguration(identity: identity)) { server in
            // With the GET, the server has counted each handshake before the client sees the answer.
            let a = loopbackRequest(port: server.port, offer: offer(.tls12, .tls13), http: true)
            let b = loopbackRequest(port: server.port, offer: offer(.tls12, .tls12), http: true)
            let c = loopbackRequest(port: server.port, offer: offer(.tls10, .tls11), http: true)
            let results = await fixture.prober.probeAll([a, b, a, c, b, a])
            #expect(results.count == 3)
            #expect(server.completedHandshakes == 3)
            #expect(fixture.prober.handshakesMade == 3)
            #expect(results[a]?.observation?.protocolVersion == .tls13)
            #expect(results[b]?.observation?.protocolVersion == .tls12)
            #expect(results[c]?.observation?.protocolVersion == .tls11)
        }
    }

    @Test func probeAllBoundsConcurrency() async throws {
        let pki = try TestPKI()
        let prober = try Prober(options: ProbeOptions(caFile: try pki.writeRootPEM(), useSystemTrustStore: false,
                                                      maxConcurrentHandshakes: 2))
        let server = try TestTLSServer.start(TLSServerConfiguration(identity: try pki.issue(CertificateSpec())))
        defer { server.stop() }
        let requests = (0..<6).map { loopbackRequest(port: server.port, timeout: 5 + Double($0), http: true) }
        let results = await prober.probeAll(requests)
        #expect(results.count == 6)
        #expect(results.values.allSatisfy { $0.observation?.http?.statusCode == 200 })
        #expect(server.completedHandshakes == 6)
    }
}

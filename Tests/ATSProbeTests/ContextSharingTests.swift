import Testing
import ATSProbe
import ATSTestServers
import TLSFacts

/// Offers that differ only in their protocol range share one SSL_CTX (`ClientContext.Settings`),
/// and each connection's SSL offers its own range: against a server that stops at TLS 1.2, the
/// TLS 1.3-only offer fails for want of a shared protocol, while the offers from TLS 1.2 and
/// TLS 1.0 up, made after it from the same context (whose own range is TLS 1.3 only), connect
/// with TLS 1.2. One context is built for the three.
@Suite struct ContextSharingTests {
    @Test func offersThatDifferInRangeShareAContextAndEachOffersItsOwnRange() async throws {
        let fixture = try ProbeFixture()
        let identity = try fixture.pki.issue(CertificateSpec())
        let suites = Prober.widestOffer.suites
        try await fixture.withServer(TLSServerConfiguration(identity: identity, maxVersion: .tls12)) { server in
            let modernOnly = await fixture.prober.probe(loopbackRequest(port: server.port, offer: ClientOffer(minVersion: .tls13, maxVersion: .tls13, suites: suites)))
            guard case .failure(let failure) = modernOnly else { Issue.record("TLS 1.3 only connected to a TLS 1.2 server: \(modernOnly)"); return }
            #expect(failure.kind == .noSharedProtocol)
            for minimum in [TLSVersion.tls12, .tls10] {
                let result = await fixture.prober.probe(loopbackRequest(port: server.port, offer: ClientOffer(minVersion: minimum, maxVersion: .tls13, suites: suites)))
                guard case .success(let observation) = result else { Issue.record("from \(minimum) up: \(result)"); continue }
                #expect(observation.protocolVersion == .tls12)
            }
        }
        #expect(fixture.prober.contextsBuilt == 1)
    }
}

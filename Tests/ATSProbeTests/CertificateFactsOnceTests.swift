import Foundation
import Testing
import ATSProbe
import ATSTestServers
import TLSFacts

/// Issue 23, item 2: each distinct served certificate is read once per run. Ten handshakes
/// with different offers to one server sending leaf + intermediate read two certificates, and
/// every observation shows the same chain as the first; a second server with its own leaf under
/// the same intermediate adds one reading, and its chain names its own leaf.
@Suite struct CertificateFactsOnceTests {
    @Test func tenHandshakesReadEachCertificateOnce() async throws {
        let fixture = try ProbeFixture(withIntermediate: true)
        let first = try fixture.pki.issue(CertificateSpec())
        let offers = [Prober.widestOffer,
                      ClientOffer(minVersion: .tls12, maxVersion: .tls12, suites: Prober.widestOffer.suites),
                      ClientOffer(minVersion: .tls13, maxVersion: .tls13, suites: Prober.widestOffer.suites)]
        var chains: [[CertificateFacts]] = []
        try await fixture.withServer(TLSServerConfiguration(identity: first)) { server in
            for index in 0..<10 {
                let result = await fixture.prober.probe(loopbackRequest(port: server.port, offer: offers[index % offers.count]))
                guard case .success(let observation) = result else { Issue.record("handshake \(index) failed: \(result)"); return }
                chains.append(observation.chain)
            }
        }
        #expect(fixture.prober.handshakesMade == 10)
        #expect(chains.first?.count == 2, "leaf and intermediate served")
        #expect(chains.allSatisfy { $0 == chains[0] })
        #expect(fixture.prober.certificatesRead == 2)

        let second = try fixture.pki.issue(CertificateSpec(dnsNames: ["second.test"]))
        try await fixture.withServer(TLSServerConfiguration(identity: second)) { server in
            let result = await fixture.prober.probe(loopbackRequest(port: server.port))
            guard case .success(let observation) = result else { Issue.record("second server failed: \(result)"); return }
            #expect(observation.chain.first?.dnsNames == ["second.test"])
            #expect(observation.chain.first?.sha256Fingerprint != chains[0].first?.sha256Fingerprint)
            #expect(observation.chain.last == chains[0].last, "the same intermediate")
        }
        #expect(fixture.prober.certificatesRead == 3)
    }
}

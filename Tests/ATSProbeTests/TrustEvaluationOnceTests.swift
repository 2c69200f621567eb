import Foundation
import Testing
import ATSProbe
import ATSTestServers
import TLSFacts

/// Issue 22: each served chain is evaluated once per run. Ten handshakes with different
/// offers to one server, served the same chain for the same name: one trust evaluation.
@Suite struct TrustEvaluationOnceTests {
    @Test func tenHandshakesOneEvaluation() async throws {
        let fixture = try ProbeFixture(withIntermediate: true)
        let identity = try fixture.pki.issue(CertificateSpec())
        try await fixture.withServer(TLSServerConfiguration(identity: identity)) { server in
            let offers = [Prober.widestOffer,
                          ClientOffer(minVersion: .tls12, maxVersion: .tls12, suites: Prober.widestOffer.suites),
                          ClientOffer(minVersion: .tls13, maxVersion: .tls13, suites: Prober.widestOffer.suites)]
            var trusted: [Bool] = []
            for index in 0..<10 {
                let result = await fixture.prober.probe(loopbackRequest(port: server.port, offer: offers[index % offers.count]))
                guard case .success(let observation) = result else { Issue.record("handshake \(index) failed: \(result)"); return }
                trusted.append(observation.trust.isTrusted)
            }
            #expect(trusted == Array(repeating: true, count: 10))
            #expect(fixture.prober.handshakesMade == 10)
            #expect(fixture.prober.trustEvaluationsMade == 1)
        }
    }
}

import Foundation
import Testing
import ATSProbe
import ATSTestServers
import TLSFacts

/// Certificate status the server delivers: OCSP staples and SCTs, from every source.
@Suite("Probe certificate status")
struct ProbeStatusTests {
    @Test(arguments: [TLSVersion.tls12, .tls13])
    func stapledOCSPResponse(version: TLSVersion) async throws {
        let fixture = try ProbeFixture(withIntermediate: true)
        let identity = try fixture.pki.issue(CertificateSpec())
        let thisUpdate = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 3600).rounded(.down))
        let nextUpdate = thisUpdate.addingTimeInterval(7 * 86_400)
        let response = try fixture.pki.ocspResponse(for: identity, thisUpdate: thisUpdate, nextUpdate: nextUpdate)
        var configuration = TLSServerConfiguration(identity: identity, ocspResponseDER: response)
        configuration.maxVersion = version
        try await fixture.withServer(configuration) { server in
            let observation = try await fixture.prober.probe(loopbackRequest(port: server.port)).get()
            #expect(observation.protocolVersion == version)
            #expect(observation.ocspStaple == OCSPStaple(responseStatus: "successful", certificateStatus: "good",
                                                         thisUpdate: thisUpdate, nextUpdate: nextUpdate))
        }
    }

    @Test func noStapleWhenNoneServed() async throws {
        let fixture = try ProbeFixture()
        let observation = try await fixture.probe().get()
        #expect(observation.ocspStaple == nil)
        #expect(observation.deliveredSCTs.isEmpty)
    }

    @Test(arguments: [TLSVersion.tls12, .tls13])
    func sctsInTheTLSExtension(version: TLSVersion) async throws {
        let fixture = try ProbeFixture()
        let when = Date(timeIntervalSince1970: 1_700_000_000.123)
        let scts = [TestSCT(logID: TestSCT.logID(7), timestamp: when), TestSCT(logID: TestSCT.logID(9), timestamp: when)]
        let observation = try await fixture.probe {
            $0.sctListExtension = serializedSCTList(scts)
            $0.maxVersion = version
        }.get()
        #expect(observation.deliveredSCTs.count == 2)
        #expect(observation.deliveredSCTs.allSatisfy { $0.source == .tlsExtension && $0.version == 0 })
        // The order is not part of the contract (OpenSSL may reorder).
        #expect(Set(observation.deliveredSCTs.map(\.logID)) == Set(scts.map { Data($0.logID).base64EncodedString() }))
        #expect(observation.deliveredSCTs.first?.timestamp == Date(timeIntervalSince1970: 1_700_000_000.123))
        #expect(observation.leaf?.embeddedSCTs.isEmpty == true)
    }

    @Test func embeddedSCTsAreReadFromTheCertificate() async throws {
        let fixture = try ProbeFixture()
        let when = Date(timeIntervalSince1970: 1_650_000_000)
        let spec = CertificateSpec(embeddedSCTs: [TestSCT(logID: TestSCT.logID(3), timestamp: when)])
        let observation = try await fixture.probe(spec).get()
        let embedded = try #require(observation.leaf?.embeddedSCTs)
        #expect(embedded == [SignedCertificateTimestamp(source: .embedded, logID: Data(TestSCT.logID(3)).base64EncodedString(),
                                                        timestamp: when, version: 0, signature: .unknownLog)],
                 "this prober knows no log keys")
        #expect(observation.deliveredSCTs.isEmpty)
    }

    @Test func statusNotRequestedMeansNoneRecorded() async throws {
        let fixture = try ProbeFixture()
        let identity = try fixture.pki.issue(CertificateSpec())
        let scts = serializedSCTList([TestSCT(logID: TestSCT.logID(1), timestamp: Date(timeIntervalSince1970: 1_600_000_000))])
        try await fixture.withServer(TLSServerConfiguration(identity: identity, sctListExtension: scts)) { server in
            var request = loopbackRequest(port: server.port)
            request.requestStatus = false
            let observation = try await fixture.prober.probe(request).get()
            #expect(observation.deliveredSCTs.isEmpty)
            #expect(observation.ocspStaple == nil)
        }
    }
}

import Foundation
import Testing
import ATSPolicy
import ATSProbe
import ATSTestServers
import TLSFacts

/// The probe side of CT and stapling: SCTs from each of the three places a server can put
/// them (count, log ID, timestamp, source) and the OCSP staple, over real handshakes.
@Suite("Apple trust: SCTs and OCSP staple as observed")
struct AppleTrustStatusTests {
    let stamp1 = TrustClock.utc(2025, 2, 28).addingTimeInterval(3_600.123)
    let stamp2 = TrustClock.utc(2025, 2, 28).addingTimeInterval(7_200.5)

    @Test func embeddedSCTsAreReadFromTheCertificate() async throws {
        let fixture = try AppleTrustFixture(anchor: .user, at: TrustClock.judged)
        let scts = [TrustLogs.sct(TrustLogs.googleArgon, at: stamp1), TrustLogs.sct(TrustLogs.cloudflareNimbus, at: stamp2),
                    TrustLogs.sct(TrustLogs.digiCertWyvern, at: stamp1)]
        let observation = try await fixture.observe(TrustClock.spec(inclusiveDays: 90, embeddedSCTs: scts))
        let embedded = try #require(observation.leaf?.embeddedSCTs)
        #expect(embedded.count == 3)
        #expect(embedded.map(\.logID) == [TrustLogs.googleArgon, TrustLogs.cloudflareNimbus, TrustLogs.digiCertWyvern])
        #expect(embedded.map(\.source) == [.embedded, .embedded, .embedded])
        #expect(embedded.map(\.version) == [0, 0, 0])
        // Timestamps travel as milliseconds.
        #expect(abs(embedded[0].timestamp.timeIntervalSince(stamp1)) < 0.001)
        #expect(abs(embedded[1].timestamp.timeIntervalSince(stamp2)) < 0.001)
        #expect(observation.deliveredSCTs.isEmpty)
        #expect(observation.ocspStaple == nil)
    }

    @Test(arguments: [TLSVersion.tls12, .tls13])
    func tlsExtensionSCTsAreRequestedAndRead(version: TLSVersion) async throws {
        let fixture = try AppleTrustFixture(anchor: .user, at: TrustClock.judged)
        let list = serializedSCTList([TrustLogs.sct(TrustLogs.googleXenon, at: stamp1), TrustLogs.sct(TrustLogs.digiCertWyvern, at: stamp2)])
        let observation = try await fixture.observe(TrustClock.spec(inclusiveDays: 90), maxVersion: version) { configuration, _ in
            configuration.sctListExtension = list
        }
        #expect(observation.protocolVersion == version)
        #expect(observation.deliveredSCTs.count == 2)
        #expect(observation.deliveredSCTs.map(\.source) == [.tlsExtension, .tlsExtension])
        #expect(observation.deliveredSCTs.map(\.logID) == [TrustLogs.googleXenon, TrustLogs.digiCertWyvern])
        #expect(abs((observation.deliveredSCTs.last?.timestamp ?? .distantPast).timeIntervalSince(stamp2)) < 0.001)
        #expect(observation.leaf?.embeddedSCTs == [])
    }

    @Test(arguments: [TLSVersion.tls12, .tls13])
    func ocspStapleAndItsSCTsAreRequestedAndRead(version: TLSVersion) async throws {
        let fixture = try AppleTrustFixture(anchor: .user, at: TrustClock.judged, withIntermediate: true)
        let thisUpdate = TrustClock.utc(2025, 3, 9), nextUpdate = TrustClock.utc(2025, 3, 16)
        let observation = try await fixture.observe(TrustClock.spec(inclusiveDays: 90), maxVersion: version) { configuration, identity in
            let response = try fixture.pki.ocspResponse(for: identity, thisUpdate: thisUpdate, nextUpdate: nextUpdate)
            configuration.ocspResponseDER = try OCSPWithSCTs.splice(response, scts: [
                TrustLogs.sct(TrustLogs.googleArgon, at: stamp1), TrustLogs.sct(TrustLogs.cloudflareNimbus, at: stamp2),
            ], certificate: identity.certificateDER)
        }
        let staple = try #require(observation.ocspStaple)
        #expect(staple.responseStatus == "successful")
        #expect(staple.certificateStatus == "good")
        #expect(staple.thisUpdate == thisUpdate)
        #expect(staple.nextUpdate == nextUpdate)
        #expect(observation.deliveredSCTs.map(\.source) == [.ocspStaple, .ocspStaple])
        #expect(observation.deliveredSCTs.map(\.logID) == [TrustLogs.googleArgon, TrustLogs.cloudflareNimbus])
    }

    /// An unmodified CA-signed staple: status and times, no SCTs.
    @Test func plainOCSPStaple() async throws {
        let fixture = try AppleTrustFixture(anchor: .user, at: TrustClock.judged)
        let thisUpdate = TrustClock.utc(2025, 3, 9), nextUpdate = TrustClock.utc(2025, 3, 12)
        let observation = try await fixture.observe(TrustClock.spec(inclusiveDays: 90)) { configuration, identity in
            configuration.ocspResponseDER = try fixture.pki.ocspResponse(for: identity, thisUpdate: thisUpdate, nextUpdate: nextUpdate)
        }
        #expect(observation.ocspStaple == OCSPStaple(responseStatus: "successful", certificateStatus: "good",
                                                     thisUpdate: thisUpdate, nextUpdate: nextUpdate))
        #expect(observation.deliveredSCTs.isEmpty)
    }

    /// The server sends status only when asked: with requestStatus off nothing arrives.
    @Test func nothingDeliveredWhenNotAsked() async throws {
        let fixture = try AppleTrustFixture(anchor: .user, at: TrustClock.judged)
        let observation = try await fixture.observe(TrustClock.spec(inclusiveDays: 90), requestStatus: false) { configuration, identity in
            configuration.sctListExtension = serializedSCTList([TrustLogs.sct(TrustLogs.googleArgon)], certificate: identity.certificateDER)
            configuration.ocspResponseDER = try fixture.pki.ocspResponse(for: identity, thisUpdate: TrustClock.issued,
                                                                         nextUpdate: TrustClock.judged)
        }
        #expect(observation.deliveredSCTs.isEmpty)
        #expect(observation.ocspStaple == nil)
    }

    /// The anchor decides which rules apply: the test seam yields .system, --ca-file .user.
    @Test func anchorSourceFollowsTheStore() async throws {
        let system = try AppleTrustFixture(anchor: .system, at: TrustClock.judged)
        let user = try AppleTrustFixture(anchor: .user, at: TrustClock.judged)
        let spec = TrustClock.spec(inclusiveDays: 90)
        let systemObservation = try await system.observe(spec)
        let userObservation = try await user.observe(spec)
        #expect(systemObservation.trust.problems.isEmpty)
        #expect(systemObservation.trust.anchor == .system)
        #expect(userObservation.trust.problems.isEmpty)
        #expect(userObservation.trust.anchor == .user)
        #expect(systemObservation.trust.evaluatedAt == TrustClock.judged)
    }
}

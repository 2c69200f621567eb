import Foundation
import Testing
import TestSupport
import ATSPolicy
import ATSProbe
import ATSTrust
import ATSTestServers
import TLSFacts

/// Apple's path rules at their boundaries, each from a real loopback handshake.
@Suite("Apple path rules")
struct ApplePathRuleTests {
    private func ids(_ violations: [CertificateRuleViolation]) -> [CertificateRuleID] { violations.map(\.rule) }
    private func nonCT(_ violations: [CertificateRuleViolation]) -> [CertificateRuleID] {
        ids(violations).filter { $0 != CertificateRuleID.certificateTransparency }
    }

    // MARK: sub-CA EKU

    @Test(arguments: [
        ([CertificateSpec.clientAuth], true), ([CertificateSpec.serverAuth], false),
        ([CertificateFacts.anyExtendedKeyUsageOID], false), ([CertificateSpec.clientAuth, CertificateSpec.serverAuth], false),
    ])
    func intermediateEKU(usages: [String], fails: Bool) async throws {
        for anchor in [AnchorSource.user, .system] {
            let fixture = try AppleTrustFixture(anchor: anchor, at: TrustClock.judged, withIntermediate: true,
                                                intermediateExtendedKeyUsage: usages)
            let observation = try await fixture.observe(TrustClock.spec(inclusiveDays: 90))
            #expect(observation.trust.isTrusted, "OpenSSL's own EKU checks stay out of the chain check")
            #expect(observation.chain[1].extendedKeyUsage?.isEmpty == false)
            let violations = fixture.violations(observation)
            #expect(nonCT(violations) == (fails ? [CertificateRuleID.caServerAuthEKU] : []), "\(anchor)")
            if fails { #expect(violations.first?.certificateIndex == 1) }
        }
    }

    // MARK: names

    @Test func partialWildcardsNeverMatch() async throws {
        let fixture = try ProbeFixture()
        for (san, matches) in [("w*.example.test", false), ("*.example.test", true), ("www.example.test", true)] {
            let identity = try fixture.pki.issue(CertificateSpec(commonName: "www.example.test", dnsNames: [san], ipAddresses: []))
            let observation = try await fixture.withServer(TLSServerConfiguration(identity: identity)) { server in
                var target = Target(host: "www.example.test", port: 443)
                target.connectAddress = "127.0.0.1"
                target.connectPort = server.port
                return try await fixture.prober.probe(ProbeRequest(target: target, offer: Prober.widestOffer, timeout: 5)).get()
            }
            #expect(observation.trust.problems.map(\.kind) == (matches ? [] : [.nameMismatch]), "\(san)")
            if !matches {
                #expect(observation.trust.problems.first?.detail
                        == "certificate is not valid for 'www.example.test'; it covers DNS:w*.example.test")
            }
        }
    }

    // MARK: key types and sizes

    @Test func rsaPSSKeysAreUnparseable() async throws {
        let fixture = try AppleTrustFixture(anchor: .user, at: TrustClock.judged)
        let observation = try await fixture.observe(TrustClock.spec(inclusiveDays: 90, key: .rsaPSS(bits: 2048)))
        #expect(observation.leaf?.publicKey.algorithm == .rsaPSS)
        let violations = fixture.violations(observation)
        #expect(ids(violations) == [CertificateRuleID.keyTypeUnsupported])
        #expect(violations.first?.detail.contains("RSA-PSS public key, which Apple cannot parse") == true)
    }

    /// Ed25519: Apple parses the key (SecKey.m) but offers no Ed25519 signature scheme, so a
    /// leaf cannot use one; an Ed25519 intermediate is fine.
    @Test func ed25519LeafFailsEd25519IntermediatePasses() async throws {
        let leafFixture = try AppleTrustFixture(anchor: .user, at: TrustClock.judged)
        let leaf = try await leafFixture.observe(TrustClock.spec(inclusiveDays: 90, key: .ed25519))
        #expect(leaf.leaf?.publicKey.algorithm == .ed25519)
        #expect(ids(leafFixture.violations(leaf)) == [CertificateRuleID.keyTypeUnsupported])

        let caFixture = try AppleTrustFixture(anchor: .user, at: TrustClock.judged, withIntermediate: true, intermediateKey: .ed25519)
        let ca = try await caFixture.observe(TrustClock.spec(inclusiveDays: 90))
        #expect(ca.chain[1].publicKey.algorithm == .ed25519)
        #expect(ca.trust.isTrusted)
        #expect(caFixture.violations(ca).isEmpty)
    }

    // MARK: SHA-1

    /// A self-signed SHA-1 leaf that is itself the (user) anchor is exempt; not trusted, it is judged.
    @Test func sha1SelfSignedLeafThatIsItsOwnAnchor() async throws {
        let identity = try TestPKI.selfSigned(CertificateSpec(signatureHash: .sha1))
        let files = try TemporaryDirectory(prefix: "atsprobe-selfsigned")
        defer { files.remove() }
        let directory = files.url
        let anchorPath = directory.appendingPathComponent("leaf.pem").path
        try Data(identity.certificatePEM.utf8).write(to: URL(fileURLWithPath: anchorPath))

        let server = try TestTLSServer.start(TLSServerConfiguration(identity: identity))
        defer { server.stop() }
        let anchored = try Prober(options: ProbeOptions(caFile: anchorPath, useSystemTrustStore: false))
        let trusted = try await anchored.probe(loopbackRequest(port: server.port)).get()
        #expect(trusted.trust.isTrusted, "\(trusted.trust.problems)")
        #expect(trusted.trust.anchor == .user)
        #expect(trusted.leaf?.signatureHash == .sha1)
        let at = Date()
        #expect(ids(AppleCertificatePolicy.violations(in: trusted, at: at, rules: .documented)) == [])

        let bare = try Prober(options: ProbeOptions(useSystemTrustStore: false))
        let untrusted = try await bare.probe(loopbackRequest(port: server.port)).get()
        #expect(untrusted.trust.anchor == nil)
        #expect(ids(AppleCertificatePolicy.violations(in: untrusted, at: at, rules: .documented)) == [CertificateRuleID.sha1Signature])
    }

    // MARK: stapled OCSP

    @Test func stapledRevokedFailsMustStapleWithoutStapleDoesNot() async throws {
        let fixture = try AppleTrustFixture(anchor: .user, at: TrustClock.judged)
        let revoked = try await fixture.observe(TrustClock.spec(inclusiveDays: 90)) { configuration, identity in
            configuration.ocspResponseDER = try fixture.pki.ocspResponse(for: identity, thisUpdate: TrustClock.issued,
                                                                         nextUpdate: TrustClock.utc(2025, 4, 1), revoked: true)
        }
        #expect(revoked.ocspStaple?.certificateStatus == "revoked")
        let violations = fixture.violations(revoked)
        #expect(ids(violations) == [CertificateRuleID.ocspRevoked])
        #expect(violations.first?.certificateIndex == 0)

        let good = try await fixture.observe(TrustClock.spec(inclusiveDays: 90)) { configuration, identity in
            configuration.ocspResponseDER = try fixture.pki.ocspResponse(for: identity, thisUpdate: TrustClock.issued,
                                                                         nextUpdate: TrustClock.utc(2025, 4, 1))
        }
        #expect(good.ocspStaple?.certificateStatus == "good")
        #expect(fixture.violations(good).isEmpty)

        var mustStaple = TrustClock.spec(inclusiveDays: 90)
        mustStaple.mustStaple = true
        let unstapled = try await fixture.observe(mustStaple)
        #expect(unstapled.ocspStaple == nil)
        #expect(unstapled.trust.isTrusted)
        #expect(fixture.violations(unstapled).isEmpty)
    }

    // MARK: date-based distrust (the test seam: a test root added to Apple's list)

    @Test func distrustedTestRootByIssuanceDate() async throws {
        let fixture = try AppleTrustFixture(anchor: .system, at: TrustClock.judged)
        let observation = try await fixture.observe(TrustClock.spec(inclusiveDays: 90, embeddedSCTs: TrustLogs.threeOperators))
        let root = try #require(observation.trust.anchorCertificate)
        func list(from date: Date) -> AppleDistrustList {
            AppleDistrustList.apple.adding(DateDistrustedRoot(sha256: root.sha256Fingerprint, name: "atsprobe Test Root",
                                                              authority: "Test CA", distrustedFrom: date, source: "test seam"))
        }
        #expect(fixture.violations(observation).isEmpty)
        // Issuance is the earliest SCT (2025-03-01T00:00:00Z, here also the notBefore).
        #expect(fixture.violations(observation, distrust: list(from: TrustClock.issued.addingTimeInterval(1))).isEmpty)
        let distrusted = fixture.violations(observation, distrust: list(from: TrustClock.issued))
        #expect(ids(distrusted) == [CertificateRuleID.distrustedRoot])
        #expect(distrusted.first?.certificateIndex == nil, "the root was not served")
        #expect(distrusted.first?.detail.contains("Test CA root 'atsprobe Test Root' is distrusted by Apple for TLS certificates issued on or after 2025-03-01T00:00:00Z; this leaf was issued (earliest SCT) 2025-03-01T00:00:00Z (test seam)") == true,
                "\(distrusted.first?.detail ?? "")")

        // An SCT a day before notBefore decides: the leaf counts as issued before the date.
        let early = TrustLogs.all.map { TestSCT(log: $0, timestamp: TrustClock.issued.addingTimeInterval(-86_400)) }.prefix(3)
        let backdated = try await fixture.observe(TrustClock.spec(inclusiveDays: 90, embeddedSCTs: Array(early)))
        #expect(nonCT(fixture.violations(backdated, distrust: list(from: TrustClock.issued))) == [])
        // A user-installed root is trusted as the user says.
        let userFixture = try AppleTrustFixture(anchor: .user, at: TrustClock.judged)
        let user = try await userFixture.observe(TrustClock.spec(inclusiveDays: 90))
        let userRoot = try #require(user.trust.anchorCertificate)
        let userList = AppleDistrustList.apple.adding(DateDistrustedRoot(sha256: userRoot.sha256Fingerprint, name: "r", authority: "Test CA",
                                                                         distrustedFrom: TrustClock.utc(2000, 1, 1), source: "test seam"))
        #expect(userFixture.violations(user, distrust: userList).isEmpty)
    }

    /// Apple's list: the 11 roots of article 121668, each in Apple's root store, from 2024-11-16.
    @Test func applesListIsInApplesStore() {
        let store = Set(AppleRootStore.roots.map(\.sha256))
        #expect(AppleDistrustList.apple.roots.count == 11)
        for root in AppleDistrustList.apple.roots {
            #expect(store.contains(root.sha256), "\(root.name)")
            #expect(root.distrustedFrom == TrustClock.utc(2024, 11, 16))
        }
        #expect(Set(AppleDistrustList.apple.roots.map(\.authority)) == ["AC Camerfirma", "Entrust", "Entrust (AffirmTrust)"])
    }
}

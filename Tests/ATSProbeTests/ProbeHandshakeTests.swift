import Foundation
import Testing
import ATSProbe
import ATSTestServers
import TLSFacts

/// Handshakes that succeed: what was negotiated, and what the certificate holds.
@Suite("Probe handshakes")
struct ProbeHandshakeTests {
    @Test func rsa2048NegotiatesTLS13ThenTLS12() async throws {
        let fixture = try ProbeFixture()
        let identity = try fixture.pki.issue(CertificateSpec(key: .rsa(bits: 2048)))
        try await fixture.withServer(TLSServerConfiguration(identity: identity)) { server in
            // With the GET, the server has counted the handshake before the client sees the answer.
            let tls13 = try await fixture.prober.probe(loopbackRequest(port: server.port, http: true)).get()
            #expect(tls13.protocolVersion == .tls13)
            #expect(tls13.cipherSuite == CipherSuite(rawValue: 0x1302))
            #expect(tls13.openSSLCipherName == "TLS_AES_256_GCM_SHA384")
            #expect(tls13.keyExchangeGroup == "X25519")
            #expect(tls13.leaf?.publicKey == PublicKeyFacts(algorithm: .rsa, bits: 2048))
            #expect(tls13.leaf?.signatureHash == .sha256)
            #expect(tls13.leaf?.spkiSHA256Base64 == identity.spkiSHA256Base64)
            #expect(tls13.leaf?.ipAddresses == ["127.0.0.1", "::1"])
            #expect(tls13.leaf?.dnsNames == ["localhost"])
            #expect(tls13.leaf?.extendedKeyUsage == [CertificateFacts.serverAuthOID])
            #expect(tls13.leaf?.isCA == false)
            #expect(tls13.alpn == nil, "the server ignores ALPN unless configured")
            #expect(tls13.peerAddress == "127.0.0.1")
            #expect(tls13.serverName == nil)
            #expect(tls13.trust.problems.isEmpty)
            #expect(tls13.trust.anchor == .user)

            let tls12 = try await fixture.prober.probe(loopbackRequest(port: server.port, offer: offer(.tls12, .tls12), http: true)).get()
            #expect(tls12.protocolVersion == .tls12)
            #expect(tls12.cipherSuite == CipherSuite(rawValue: 0xC030))
            #expect(tls12.keyExchangeGroup == "X25519")
            #expect(server.completedHandshakes == 2)
        }
        #expect(fixture.prober.handshakesMade == 2)
    }

    @Test(arguments: [(TestCurve.p256, 256, "prime256v1"), (TestCurve.p384, 384, "secp384r1")])
    func ecdsaLeaf(curve: TestCurve, bits: Int, name: String) async throws {
        let fixture = try ProbeFixture()
        let observation = try await fixture.probe(CertificateSpec(key: .ec(curve: curve))).get()
        #expect(observation.leaf?.publicKey == PublicKeyFacts(algorithm: .ec, bits: bits, curve: name))
        #expect(observation.leaf?.signatureAlgorithm == "ecdsa-with-SHA256")
        #expect(observation.protocolVersion == .tls13)
        #expect(observation.trust.problems.isEmpty)
    }

    @Test func rsa4096Leaf() async throws {
        let fixture = try ProbeFixture()
        let observation = try await fixture.probe(CertificateSpec(key: .rsa(bits: 4096))).get()
        #expect(observation.leaf?.publicKey == PublicKeyFacts(algorithm: .rsa, bits: 4096))
    }

    @Test func rsa1024LeafIsObserved() async throws {
        let fixture = try ProbeFixture()
        let observation = try await fixture.probe(CertificateSpec(key: .rsa(bits: 1024))).get()
        #expect(observation.leaf?.publicKey == PublicKeyFacts(algorithm: .rsa, bits: 1024))
    }

    @Test func sha1SignedLeafIsObserved() async throws {
        let fixture = try ProbeFixture()
        let observation = try await fixture.probe(CertificateSpec(signatureHash: .sha1)).get()
        #expect(observation.leaf?.signatureHash == .sha1)
        #expect(observation.leaf?.signatureAlgorithm == "ecdsa-with-SHA1")
    }

    /// Servers limited to one version, each observed with the widest offer.
    @Test(arguments: [(TLSVersion.tls10, 0xC014 as UInt16), (.tls11, 0xC014), (.tls12, 0xC030), (.tls13, 0x1302)])
    func serverWithOneVersion(version: TLSVersion, suite: UInt16) async throws {
        let fixture = try ProbeFixture()
        let observation = try await fixture.probe(CertificateSpec(key: .rsa(bits: 2048))) {
            $0.minVersion = version
            $0.maxVersion = version
        }.get()
        #expect(observation.protocolVersion == version)
        #expect(observation.cipherSuite == CipherSuite(rawValue: suite))
    }

    /// Servers limited to one TLS 1.2 suite.
    @Test(arguments: [
        ("AES128-GCM-SHA256", 0x009C as UInt16, nil as String?),
        ("DHE-RSA-AES128-GCM-SHA256", 0x009E, "DH 2048"),
        ("ECDHE-RSA-AES256-SHA", 0xC014, "X25519"),
        ("ECDHE-RSA-CHACHA20-POLY1305", 0xCCA8, "X25519"),
    ])
    func serverWithOneSuite(cipherList: String, suite: UInt16, group: String?) async throws {
        let fixture = try ProbeFixture()
        let observation = try await fixture.probe(CertificateSpec(key: .rsa(bits: 2048))) {
            $0.maxVersion = .tls12
            $0.cipherList = cipherList
        }.get()
        #expect(observation.protocolVersion == .tls12)
        #expect(observation.cipherSuite == CipherSuite(rawValue: suite))
        #expect(observation.openSSLCipherName == cipherList)
        #expect(observation.keyExchangeGroup == group)
    }

    /// The key-exchange group as the server chose it, including a TLS 1.3 retry to a finite-field group.
    @Test(arguments: [("P-256", TLSVersion.tls12, "secp256r1"), ("P-384", .tls13, "secp384r1"), ("ffdhe2048", .tls13, "ffdhe2048")])
    func serverChosenGroup(groups: String, version: TLSVersion, expected: String) async throws {
        let fixture = try ProbeFixture()
        let observation = try await fixture.probe {
            $0.groups = groups
            $0.maxVersion = version
        }.get()
        #expect(observation.protocolVersion == version)
        #expect(observation.keyExchangeGroup == expected)
    }

    @Test func ipv6Loopback() async throws {
        let fixture = try ProbeFixture()
        let identity = try fixture.pki.issue(CertificateSpec())
        try await fixture.withServer(TLSServerConfiguration(identity: identity, bindAddress: "::1")) { server in
            let observation = try await fixture.prober.probe(loopbackRequest(port: server.port, host: "::1")).get()
            #expect(observation.peerAddress == "::1")
            #expect(observation.trust.problems.isEmpty)
            #expect(observation.protocolVersion == .tls13)
        }
    }

    /// curl --connect-to: the name is kept for SNI and the certificate check, the address is not resolved.
    @Test func connectToKeepsTheName() async throws {
        let fixture = try ProbeFixture()
        let identity = try fixture.pki.issue(CertificateSpec(dnsNames: ["www.example.test"], ipAddresses: []))
        try await fixture.withServer(TLSServerConfiguration(identity: identity)) { server in
            let target = Target(host: "www.example.test", port: 443, connectAddress: "127.0.0.1", connectPort: server.port)
            let observation = try await fixture.prober.probe(ProbeRequest(target: target, offer: Prober.widestOffer, timeout: 5)).get()
            #expect(observation.serverName == "www.example.test")
            #expect(observation.peerAddress == "127.0.0.1")
            #expect(observation.port == server.port)
            #expect(observation.trust.problems.isEmpty)
        }
    }

    @Test func widestOfferCoversLegacyAndModernSuites() {
        let offer = Prober.widestOffer
        let codes = Set(offer.suites.map(\.rawValue))
        for code: UInt16 in [0x1301, 0x1302, 0x1303, 0xC02F, 0xC030, 0xCCA8, 0xC014, 0x009C, 0x002F, 0x009E, 0xCCAA] {
            #expect(codes.contains(code), "missing \(CipherSuite(rawValue: code))")
        }
        // 3DES is offered exactly when this OpenSSL build still has it (this one may be built without).
        #expect(codes.contains(0x000A) == Prober.supportedSuites.contains(CipherSuite(rawValue: 0x000A)))
        #expect(offer.suites.prefix(3).allSatisfy { $0.isTLS13 })
        // Strong first: every forward-secret suite comes before every static-RSA one.
        let lastForwardSecret = offer.suites.lastIndex(where: \.isForwardSecret) ?? 0
        let firstStaticRSA = offer.suites.firstIndex(of: CipherSuite(rawValue: 0x009C)) ?? 0
        #expect(lastForwardSecret < firstStaticRSA)
        #expect(offer.minVersion == .tls10 && offer.maxVersion == .tls13)
        #expect(Prober.supportedSuites.isSuperset(of: offer.suites))
    }
}

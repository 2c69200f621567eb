import Testing
import ATSPolicy
import ATSProbe
import ATSTestServers
import TLSFacts

/// The groups, signature algorithms and ALPN of an offer reach the wire: Apple's lists (from the
/// rule set) refuse what Apple refuses, the observing lists still show what the server picks.
@Suite struct ProbeOfferTests {
    static func apple(_ min: TLSVersion, _ max: TLSVersion, ruleSet: RuleSet = .ios26) -> ClientOffer {
        ClientOffer(minVersion: min, maxVersion: max, suites: Prober.widestOffer.suites,
                    groups: ruleSet.groups, signatureSchemes: ruleSet.signatureSchemes, alpn: ruleSet.alpn)
    }

    @Test func x448OnlyServerRefusesApplesGroups() async throws {
        let fixture = try ProbeFixture()
        let refused = try await fixture.probe(offer: Self.apple(.tls12, .tls13)) { $0.groups = "X448" }
        #expect(refused.failure != nil)
        let observed = try await fixture.probe(offer: offer(.tls12, .tls13)) { $0.groups = "X448" }
        #expect(observed.observation?.keyExchangeGroup == "X448")
    }

    @Test func serverSignatureSchemeIsRecorded() async throws {
        let fixture = try ProbeFixture()
        let sha1 = try await fixture.probe(CertificateSpec(key: .ec(curve: .p256)), offer: offer(.tls12, .tls12)) {
            $0.signatureAlgorithms = "ECDSA+SHA1"
        }
        #expect(sha1.observation?.serverSignatureScheme == .ecdsaSHA1)
        // iOS 26 offers no ecdsa_sha1; the documented (iOS 12-15) ClientHello does.
        let ios26 = try await fixture.probe(CertificateSpec(key: .ec(curve: .p256)), offer: Self.apple(.tls12, .tls12)) {
            $0.signatureAlgorithms = "ECDSA+SHA1"
        }
        #expect(ios26.failure != nil)
        let documented = try await fixture.probe(CertificateSpec(key: .ec(curve: .p256)), offer: Self.apple(.tls12, .tls12, ruleSet: .documented)) {
            $0.signatureAlgorithms = "ECDSA+SHA1"
        }
        #expect(documented.observation?.serverSignatureScheme == .ecdsaSHA1)
        let pss = try await fixture.probe(CertificateSpec(key: .rsaPSS(bits: 2048)), offer: offer(.tls13, .tls13))
        #expect(pss.observation?.serverSignatureScheme == .rsaPSSPSSSHA256)
        let rsae = try await fixture.probe(CertificateSpec(key: .rsa(bits: 2048)), offer: offer(.tls13, .tls13))
        #expect(rsae.observation?.serverSignatureScheme == .rsaPSSRSAESHA256)
    }

    @Test func p521LeafNeedsASchemeAppleDoesNotOfferOnTLS13() async throws {
        let fixture = try ProbeFixture()
        let spec = CertificateSpec(key: .ec(curve: .p521))
        #expect(try await fixture.probe(spec, offer: Self.apple(.tls13, .tls13)).failure != nil)
        // TLS 1.2 binds no curve to the hash: the same leaf is fine there.
        #expect(try await fixture.probe(spec, offer: Self.apple(.tls12, .tls12)).observation != nil)
    }

    /// With h2 selected the GET goes over HTTP/2, its status and Location read through HPACK.
    @Test func h2ResponseIsRead() async throws {
        let fixture = try ProbeFixture()
        let identity = try fixture.pki.issue(CertificateSpec())
        try await fixture.withServer(TLSServerConfiguration(identity: identity, alpn: ["h2"], alpnMismatchIsFatal: true,
                                                            http: .redirect(to: "/next"))) { server in
            let request = ProbeRequest(target: Target(host: "127.0.0.1", port: server.port), offer: Self.apple(.tls12, .tls13),
                                       httpRequest: true, timeout: 5)
            let observation = try await fixture.prober.probe(request).get()
            #expect(observation.alpn == "h2")
            #expect(observation.http?.statusCode == 301)
            #expect(observation.http?.location == "/next")
            #expect(observation.http?.server == "atsprobe-test-h2")
            #expect(observation.http?.failure == nil)
        }
    }
}

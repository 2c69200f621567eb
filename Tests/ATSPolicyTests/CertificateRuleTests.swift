import Foundation
import Testing
import TLSFacts
@testable import ATSPolicy

@Suite("Apple certificate rules: SAN, EKU, RSA, signature hash")
struct CertificateRuleTests {
    typealias F = CertificateFixture

    /// SecPolicyCheckServerAuthEKU: system roots always need serverAuth; user roots are skipped
    /// (only the loose check: an EKU, when present, must allow serverAuth or anyEKU); chains
    /// to no known root from 2019-07-01. `.everyAnchor` reads HT210176 literally.
    @Test func serverAuthEKUByAnchor() {
        let before = F.leaf(notBefore: F.date(2019, 6, 30), days: 365, extendedKeyUsage: nil)
        let on = F.leaf(notBefore: F.date(2019, 7, 1), days: 365, extendedKeyUsage: nil)
        #expect(F.nonCTRules(F.chain(before), anchor: .system) == [CertificateRuleID.serverAuthEKU])
        #expect(F.nonCTRules(F.chain(on), anchor: .system) == [CertificateRuleID.serverAuthEKU])
        #expect(F.nonCTRules(F.chain(before), anchor: .user) == [])
        #expect(F.nonCTRules(F.chain(on), anchor: .user) == [])
        #expect(F.nonCTRules(F.chain(before), anchor: nil) == [])
        #expect(F.nonCTRules(F.chain(on), anchor: nil) == [CertificateRuleID.serverAuthEKU])
        var literal = CertificateRuleSet.documented
        literal.leafEKUScope = .everyAnchor
        #expect(F.nonCTRules(F.chain(before), anchor: .system, rules: literal) == [])
        #expect(F.nonCTRules(F.chain(on), anchor: .user, rules: literal) == [CertificateRuleID.serverAuthEKU])
    }

    @Test func serverAuthEKUMustBeListed() {
        let clientOnly = F.leaf(extendedKeyUsage: ["1.3.6.1.5.5.7.3.2"])
        let anyOnly = F.leaf(extendedKeyUsage: [CertificateFacts.anyExtendedKeyUsageOID])
        let both = F.leaf(extendedKeyUsage: ["1.3.6.1.5.5.7.3.2", CertificateFacts.serverAuthOID])
        #expect(F.nonCTRules(F.chain(clientOnly)) == [CertificateRuleID.serverAuthEKU])
        #expect(F.nonCTRules(F.chain(anyOnly)) == [CertificateRuleID.serverAuthEKU])
        #expect(F.nonCTRules(F.chain(both)) == [])
        let detail = AppleCertificatePolicy.violations(chain: F.chain(anyOnly), anchor: .system, at: F.date(2026, 3, 1))
            .first?.detail ?? ""
        #expect(detail.contains("anyExtendedKeyUsage"))
        // A user-installed root: anyEKU passes, clientAuth alone still fails (the loose check).
        #expect(F.nonCTRules(F.chain(anyOnly), anchor: .user) == [])
        #expect(F.nonCTRules(F.chain(clientOnly), anchor: .user) == [CertificateRuleID.serverAuthEKU])
    }

    /// Issue 40: an empty EKU extension (x509-limbo rfc5280::eku::ee-eku-empty) is refused
    /// whatever the root, as Apple refuses it: SecCertificateCopyExtendedKeyUsage gives an empty,
    /// non-NULL array, extendedkeyusage_allows finds no usage in it, and the "no EKU" allowance
    /// applies to a NULL array only. No extension at all stays fine under a user root.
    @Test func anEmptyEKUExtensionAllowsNoUsage() {
        let empty = F.leaf(notBefore: F.date(2019, 6, 30), days: 365, extendedKeyUsage: [])
        let absent = F.leaf(notBefore: F.date(2019, 6, 30), days: 365, extendedKeyUsage: nil)
        for anchor: AnchorSource? in [.user, .system, nil, .app] {
            #expect(F.nonCTRules(F.chain(empty), anchor: anchor) == [CertificateRuleID.serverAuthEKU], "\(String(describing: anchor))")
        }
        #expect(F.nonCTRules(F.chain(absent), anchor: .user) == [])
        let detail = AppleCertificatePolicy.violations(chain: F.chain(empty), anchor: .user, at: F.date(2019, 8, 1)).first?.detail ?? ""
        #expect(detail.contains("lists no usage"), "\(detail)")
    }

    @Test func leafWithoutAnySubjectAltName() {
        let none = F.leaf(dnsNames: [], ipAddresses: [])
        let ipOnly = F.leaf(dnsNames: [], ipAddresses: ["127.0.0.1"])
        #expect(F.nonCTRules(F.chain(none)) == [CertificateRuleID.subjectAltNameMissing])
        #expect(F.nonCTRules(F.chain(ipOnly)) == [])
        let found = AppleCertificatePolicy.violations(chain: F.chain(none), anchor: .user, serverName: "www.example.com",
                                                      at: F.date(2026, 3, 1))
        #expect(found.map(\.certificateIndex) == [0])
        #expect(found.first?.detail.contains("asked for www.example.com") == true)
    }

    /// Compared in bytes (SecCertificateIsAtLeastMinKeySize): 2041-2047 bits are 256 bytes and
    /// pass, 2040 bits (255 bytes) fails; `.bits` compares bits as HT210176 reads.
    @Test func rsaKeysOf2048BitsForLeafAndIssuingCAs() {
        let rsa2040 = PublicKeyFacts(algorithm: .rsa, bits: 2040)
        let rsa2041 = PublicKeyFacts(algorithm: .rsa, bits: 2041)
        let rsa2047 = PublicKeyFacts(algorithm: .rsa, bits: 2047)
        let rsa2048 = PublicKeyFacts(algorithm: .rsa, bits: 2048)
        #expect(F.nonCTRules(F.chain(F.leaf(key: rsa2048))) == [])
        #expect(F.nonCTRules(F.chain(F.leaf(key: rsa2047))) == [])
        #expect(F.nonCTRules(F.chain(F.leaf(key: rsa2041))) == [])
        #expect(F.nonCTRules(F.chain(F.leaf(key: rsa2040))) == [CertificateRuleID.rsaKeySize])
        var bits = CertificateRuleSet.documented
        bits.keySizeCounting = .bits
        #expect(F.nonCTRules(F.chain(F.leaf(key: rsa2047)), rules: bits) == [CertificateRuleID.rsaKeySize])
        #expect(F.nonCTRules(F.chain(intermediate: F.ca(key: rsa2048))) == [])
        let weakCA = AppleCertificatePolicy.violations(chain: F.chain(intermediate: F.ca(key: rsa2040)), anchor: .user,
                                                       at: F.date(2026, 3, 1))
        #expect(weakCA.map(\.rule) == [CertificateRuleID.rsaKeySize])
        #expect(weakCA.map(\.certificateIndex) == [1])
        // Small EC keys are not this rule's: ec-key-size refuses them (issue 33; SecPolicy.c
        // SecPolicyAddStrongKeySizeOptions), in the leaf and in an issuing CA, P-256 passes.
        #expect(F.nonCTRules(F.chain(F.leaf(key: PublicKeyFacts(algorithm: .ec, bits: 224)))) == [CertificateRuleID.ecKeySize])
        #expect(F.nonCTRules(F.chain(intermediate: F.ca(key: PublicKeyFacts(algorithm: .ec, bits: 192)))) == [CertificateRuleID.ecKeySize])
        #expect(F.nonCTRules(F.chain(F.leaf(key: PublicKeyFacts(algorithm: .ec, bits: 256)))) == [])
    }

    @Test func sha1IsRefusedExceptForTheRootSelfSignature() {
        let sha1Intermediate = AppleCertificatePolicy.violations(chain: F.chain(intermediate: F.ca(hash: .sha1)),
                                                                 anchor: .user, at: F.date(2026, 3, 1))
        #expect(sha1Intermediate.map(\.rule) == [CertificateRuleID.sha1Signature])
        #expect(sha1Intermediate.map(\.certificateIndex) == [1])
        #expect(F.nonCTRules(F.chain(root: F.root(hash: .sha1))) == [])
        #expect(F.nonCTRules(F.chain(F.leaf(hash: .sha1))) == [CertificateRuleID.sha1Signature])
        #expect(F.nonCTRules(F.chain(F.leaf(hash: .md5))) == [CertificateRuleID.md5Signature])
        // A self-issued certificate that is not last is not the root: its SHA-1 counts.
        let selfIssuedMiddle = [F.leaf(), F.ca(selfIssued: true, hash: .sha1), F.root()]
        #expect(F.nonCTRules(selfIssuedMiddle) == [CertificateRuleID.sha1Signature])
    }

    @Test func violationsNameTheCertificateAndEscapeItsSubject() {
        let hostile = F.ca(subject: "CN=Evil\u{1B}[31m CA", key: PublicKeyFacts(algorithm: .rsa, bits: 1024))
        let found = AppleCertificatePolicy.violations(chain: F.chain(intermediate: hostile), anchor: .user, at: F.date(2026, 3, 1))
        #expect(found.count == 1)
        let detail = found.first?.detail ?? ""
        #expect(detail.hasPrefix("certificate 1 [CA] (CN=Evil\\x1B[31m CA): RSA key of 1024 bits"))
        #expect(detail.hasSuffix("[rsa-key-size]"))
        #expect(!detail.contains("\u{1B}"))
    }

    @Test func everyRuleIdIsStableAndDistinct() {
        #expect(Set(CertificateRuleID.all).count == CertificateRuleID.all.count)
        #expect(CertificateRuleID.all.contains("validity-398"))
        #expect(CertificateRuleID.all.contains("rsa-key-size"))
        #expect(CertificateRuleID.all.contains("sha1-signature"))
    }

    @Test func aCompliantPublicChainHasNoViolations() {
        let leaf = F.leaf(embeddedSCTs: [F.sct(F.Log.argon2026h1), F.sct(F.Log.nimbus2026)])
        #expect(F.rules(F.chain(leaf)) == [])
    }

    @Test func observationEntryPointUsesChainAnchorAndDeliveredSCTs() {
        let leaf = F.leaf(notBefore: F.date(2026, 1, 10), days: 200, key: PublicKeyFacts(algorithm: .rsa, bits: 2040))
        func observation(anchor: AnchorSource?, delivered: [SignedCertificateTimestamp]) -> Observation {
            Observation(peerAddress: "127.0.0.1", port: 443, serverName: "www.example.com", protocolVersion: .tls13,
                        cipherSuite: CipherSuite(rawValue: 0x1301), openSSLCipherName: "TLS_AES_128_GCM_SHA256",
                        keyExchangeGroup: "X25519", chain: F.chain(leaf), alpn: nil, connectMilliseconds: 1,
                        handshakeMilliseconds: 1,
                        trust: TrustEvaluation(problems: [], anchor: anchor, evaluatedAt: F.date(2026, 3, 1)),
                        deliveredSCTs: delivered)
        }
        let at = F.date(2026, 3, 1)
        #expect(AppleCertificatePolicy.violations(in: observation(anchor: .user, delivered: []), at: at).map(\.rule)
                == [CertificateRuleID.rsaKeySize])
        #expect(AppleCertificatePolicy.violations(in: observation(anchor: .system, delivered: []), at: at).map(\.rule)
                == [CertificateRuleID.rsaKeySize, CertificateRuleID.certificateTransparency])
        let delivered = [F.sct(F.Log.argon2026h1, .tlsExtension), F.sct(F.Log.nimbus2026, .tlsExtension)]
        #expect(AppleCertificatePolicy.violations(in: observation(anchor: .system, delivered: delivered), at: at).map(\.rule)
                == [CertificateRuleID.rsaKeySize])
        #expect(AppleCertificatePolicy.violations(in: observation(anchor: .user, delivered: []), at: at,
                                                  requireCertificateTransparency: true).map(\.rule)
                == [CertificateRuleID.rsaKeySize, CertificateRuleID.certificateTransparency])
    }
}

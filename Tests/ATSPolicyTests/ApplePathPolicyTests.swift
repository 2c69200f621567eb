import Foundation
import Testing
import TLSFacts
@testable import ATSPolicy
import ATSPolicyFixtures

/// Apple's path rules on synthetic chains (no network): the WoSign/StartCom constraint, the
/// RSA maximum, key types, the chain as built, and the codes every trust failure carries.
@Suite("Apple path rules (policy)")
struct ApplePathPolicyTests {
    typealias F = CertificateFixture

    static func withFingerprint(_ certificate: CertificateFacts, _ fingerprint: String) -> CertificateFacts {
        var copy = certificate
        copy.sha256Fingerprint = fingerprint
        return copy
    }

    /// A leaf under a WoSign root: notBefore 2016-11-30 23:59:59 passes, 2016-12-01 00:00:00 fails.
    @Test func woSignStartComNotBeforeConstraint() {
        let woSign = Self.withFingerprint(F.root(), "8B:45:DA:1C:06:F7:91:EB:0C:AB:F2:6B:E5:88:F5:FB:23:16:5C:2E:61:4B:F8:85:56:2D:0D:CE:50:B2:9B:02")
        func rules(_ notBefore: Date) -> [CertificateRuleID] {
            let leaf = F.leaf(notBefore: notBefore, days: 90)
            return AppleCertificatePolicy.violations(chain: [leaf, F.ca()], anchor: .system, at: notBefore.addingTimeInterval(86_400),
                                                     rules: .documented, path: [leaf, F.ca(), woSign])
                .map(\.rule).filter { $0 != CertificateRuleID.certificateTransparency }
        }
        #expect(rules(F.date(2016, 12, 1, plus: -1)) == [])
        #expect(rules(F.date(2016, 12, 1)) == [CertificateRuleID.distrustedRoot])
    }

    /// Article 121668 through Apple's own list: an Entrust-anchored leaf issued (no SCT) on
    /// 2024-11-15 23:59:59 passes, one at 2024-11-16 00:00:00 fails, naming the CA and article.
    @Test func entrustByNotBefore() throws {
        let entrust = Self.withFingerprint(F.root(), "73C176434F1BC6D5ADF45B0E76E727287C8DE57616C1E6E6141A2B2CBC7D8E4C")
        func found(_ notBefore: Date) -> [CertificateRuleViolation] {
            let leaf = F.leaf(notBefore: notBefore, days: 90)
            return AppleCertificatePolicy.violations(chain: [leaf, F.ca()], anchor: .system, at: notBefore.addingTimeInterval(86_400),
                                                     rules: .documented, path: [leaf, F.ca(), entrust])
                .filter { $0.rule != CertificateRuleID.certificateTransparency }
        }
        #expect(found(F.date(2024, 11, 16, plus: -1)).isEmpty)
        let violation = try #require(found(F.date(2024, 11, 16)).first)
        #expect(violation.rule == CertificateRuleID.distrustedRoot)
        #expect(violation.detail.contains("Entrust root 'Entrust Root Certification Authority' is distrusted by Apple"))
        #expect(violation.detail.contains("issued (notBefore; no SCT) 2024-11-16T00:00:00Z"))
        #expect(violation.detail.contains("Apple support article 121668"))
        #expect(violation.detail.contains("chain certificate 2 [root]"), "the root was not served: \(violation.detail)")
    }

    @Test func rsaMaximumAndUnparseableKeys() {
        let rsa8192 = PublicKeyFacts(algorithm: .rsa, bits: 8192), rsa8193 = PublicKeyFacts(algorithm: .rsa, bits: 8193)
        #expect(F.nonCTRules(F.chain(F.leaf(key: rsa8192))) == [])
        #expect(F.nonCTRules(F.chain(F.leaf(key: rsa8193))) == [CertificateRuleID.rsaKeyTooLarge])
        #expect(F.nonCTRules(F.chain(intermediate: F.ca(key: rsa8193))) == [CertificateRuleID.rsaKeyTooLarge])
        #expect(F.nonCTRules(F.chain(intermediate: F.ca(key: PublicKeyFacts(algorithm: .dsa, bits: 2048))))
                == [CertificateRuleID.keyTypeUnsupported])
        #expect(F.nonCTRules(F.chain(intermediate: F.ca(key: PublicKeyFacts(algorithm: .ed25519, bits: 256))))
                == [], "Apple parses Ed25519 keys; only a leaf cannot use one in TLS")
        #expect(F.nonCTRules(F.chain(F.leaf(key: PublicKeyFacts(algorithm: .ed448, bits: 456))))
                == [CertificateRuleID.keyTypeUnsupported])
    }

    /// A fetched intermediate (in the path, not served) is judged too, without a served index.
    @Test func subCAEKUInTheChainAsBuilt() throws {
        var fetched = F.ca(subject: "CN=Fetched CA")
        fetched.extendedKeyUsage = ["1.3.6.1.5.5.7.3.4"]
        fetched.sha256Fingerprint = "EE:FF"
        let leaf = F.leaf()
        let found = AppleCertificatePolicy.violations(chain: [leaf], anchor: .user, at: F.date(2026, 3, 1),
                                                      rules: .documented, path: [leaf, fetched, F.root()])
        #expect(found.map(\.rule) == [CertificateRuleID.caServerAuthEKU])
        #expect(found.first?.certificateIndex == nil)
        #expect(found.first?.detail.hasPrefix("chain certificate 1 [CA, not served] (CN=Fetched CA)") == true)
        // The root's own EKU is never judged.
        var root = F.root()
        root.extendedKeyUsage = ["1.3.6.1.5.5.7.3.4"]
        #expect(AppleCertificatePolicy.violations(chain: [leaf], anchor: .user, at: F.date(2026, 3, 1),
                                                  rules: .documented, path: [leaf, F.ca(), root]).isEmpty)
    }

    /// Every trust failure carries Apple's three codes, in the Reason and in the error.
    @Test func trustFailuresCarryAppleCodes() throws {
        let mismatch = TrustProblem(kind: .nameMismatch, certificateIndex: 0, detail: "certificate is not valid for 'example.com'; it covers DNS:other.example")
        let observation = testObservation(trustProblems: [mismatch])
        let policy = EffectivePolicy(configuration: ATSConfiguration(), host: "example.com", ruleSet: .documented)
        let verdict = ATSEvaluator.evaluate(.success(observation), under: policy, ruleSet: .documented, certificateViolations: [])
        #expect(!verdict.passed)
        let reason = try #require(verdict.reasons.first)
        #expect(reason.message == "certificate not trusted: certificate is not valid for 'example.com'; it covers DNS:other.example (NSURLError -1202, SecureTransport -9843, OSStatus -67602 errSecHostNameMismatch)")
        #expect(verdict.error?.code == -1202 && verdict.error?.streamErrorCode == -9843 && verdict.error?.osStatus == -67602)
        #expect(verdict.error?.nscurlDescription.contains("NSURLErrorFailingURLPeerTrustErrorKey=Error Domain=NSOSStatusErrorDomain Code=-67602") == true)

        for kind in [TrustProblem.Kind.untrustedRoot, .selfSigned, .incompleteChain, .expired, .notYetValid, .nameMismatch, .invalidChain] {
            let codes = AppleTrustCodes.codes(for: kind)
            #expect(codes.urlError == -1202 && codes.osStatus < 0 && codes.osStatusName.hasPrefix("errSec"))
        }
        for rule in CertificateRuleID.all {
            let codes = AppleTrustCodes.codes(forRule: rule)
            #expect(codes.urlError == -1202 && codes.osStatus < 0 && codes.osStatusName.hasPrefix("errSec"), "\(rule)")
        }
        #expect(AppleTrustCodes.codes(forRule: CertificateRuleID.distrustedRoot).osStatus == -67820)
        #expect(AppleTrustCodes.codes(for: .incompleteChain).osStatus == -25318)
    }

    @Test func missingIntermediateWarningOnlyWhenAFetchHelped() {
        let fetched = FetchedIssuer(url: "http://ca.example/int.cer", forSubject: "CN=leaf", certificates: [F.ca()], failure: nil)
        let failed = FetchedIssuer(url: "http://ca.example/x", forSubject: "CN=leaf", certificates: [], failure: "HTTP 404")
        let trusted = TrustEvaluation(problems: [], anchor: .system, evaluatedAt: F.date(2026, 1, 1), fetchedIssuers: [fetched])
        #expect(TrustAdvice.missingIntermediateWarning(trusted)
                == "the server does not send its intermediate 'CN=Example Issuing CA'; Apple fetched it from http://ca.example/int.cer (caIssuers), so Apple devices trust the chain, but clients that do not fetch (Android, curl, Firefox) fail")
        let untrusted = TrustEvaluation(problems: [], anchor: nil, evaluatedAt: F.date(2026, 1, 1), fetchedIssuers: [fetched])
        #expect(TrustAdvice.missingIntermediateWarning(untrusted) == nil)
        let onlyFailed = TrustEvaluation(problems: [], anchor: .system, evaluatedAt: F.date(2026, 1, 1), fetchedIssuers: [failed])
        #expect(TrustAdvice.missingIntermediateWarning(onlyFailed) == nil)
    }
}

/// NSPinnedDomains are matched against the chain as built, as Apple does: a CA pin on a root the
/// server did not send is satisfied once the chain reached that root.
@Suite("Pins against the chain as built")
struct PinsOnBuiltChainTests {
    @Test func caPinOnAnUnsentRoot() {
        var observation = testObservation(chainSPKIs: ["leafSPKI", "caSPKI"])
        var root = observation.chain[1]
        root.spkiSHA256Base64 = "rootSPKI"
        root.sha256Fingerprint = "FF:FF"
        func verdict() -> Verdict {
            let config = ATSConfiguration(pinnedDomains: ["example.com": PinnedDomain(caIdentities: ["rootSPKI"])])
            let policy = EffectivePolicy(configuration: config, host: "example.com", ruleSet: .documented)
            return ATSEvaluator.evaluate(.success(observation), under: policy, ruleSet: .documented, certificateViolations: [])
        }
        #expect(verdict().reasons.map(\.code) == ["pinMismatch"], "served chain only: the root is not there")
        observation.trust.path = observation.chain + [root]
        #expect(verdict().passed, "\(verdict().reasons)")
    }
}

@testable import ATSAdvice
@testable import ATSPolicy
import ATSPolicyFixtures
import Foundation
import Testing
import TLSFacts

/// Server fixes for hosts no exception helps, and advice that says each fact once (issue 14).
@Suite struct ServerFixPolicyTests {
    @Test func aClauseOnlyNamingSuitesAlreadySaidIsDropped() {
        let said = "server chose TLS_RSA_WITH_AES_128_GCM_SHA256 under every offer it answered, never an ATS forward-secret suite (documented)"
        let rsa = CipherSuite(rawValue: 0x009C), dhe = CipherSuite(rawValue: 0x009E)
        let reason = FailureReason(.handshakeFailed(.noSharedCipher), layer: .handshake, "no suite in common",
                                   context: .serverChoosesOutsideOffer([rsa]))
        let fact = Clause(.serverChose([rsa]), said)
        let evidence = KeyEvidence(key: "NSExceptionRequiresForwardSecrecy", value: "false", facts: [fact],
                                   comparison: .tested(setting: "with forward secrecy required", Verdict(passed: false, reasons: [reason])),
                                   chosenSuites: [rsa])
        #expect(evidence.observation == said + "; with forward secrecy required fails: no suite in common")
        // A clause naming another suite stays.
        let other = FailureReason(.handshakeFailed(.noSharedCipher), layer: .handshake, "no suite in common",
                                  context: .serverChoosesOutsideOffer([dhe]))
        #expect(other.clauses.notSaid(by: [fact]).map(\.text)
                == ["no suite in common", "the server chooses TLS_DHE_RSA_WITH_AES_128_GCM_SHA256, which this offer does not include"])
    }

    /// Clauses are compared as values (issue 39, item 7): the facts name
    /// TLS_DHE_RSA_WITH_AES_128_CBC_SHA256, the reason TLS_DHE_RSA_WITH_AES_128_CBC_SHA, whose name
    /// begins the other's. The reason's clause says a suite the facts do not, and stays; the
    /// substring search (RepeatedClauses) found its name inside the facts' and dropped it.
    @Test func aSuiteWhoseNameBeginsAnotherIsNotSaidByIt() {
        let sha = CipherSuite(rawValue: 0x0033), sha256 = CipherSuite(rawValue: 0x0067)
        #expect(sha256.ianaName.hasPrefix(sha.ianaName))
        let reason = FailureReason(.handshakeFailed(.noSharedCipher), layer: .handshake, "no suite in common",
                                   context: .serverChoosesOutsideOffer([sha]))
        let results = NSCurlMatrix.tests(host: "example.com").map { ($0, Verdict(passed: false, reasons: [reason])) }
        let suggestion = ExceptionAdvisor.suggest(host: "example.com", results: results,
                                                  observations: [.success(testObservation(suite: sha256))], ruleSet: .ios26)
        guard case .impossible(let text) = suggestion else {
            Issue.record("expected no exception to help: \(suggestion)")
            return
        }
        #expect(text.contains("server chose TLS_DHE_RSA_WITH_AES_128_CBC_SHA256, which the platform (ios26) does not offer"), "\(text)")
        #expect(text.contains("the server chooses TLS_DHE_RSA_WITH_AES_128_CBC_SHA, which this offer does not include"), "\(text)")
    }

    @Test func staticRSAEvidenceNamesTheSuiteOnce() {
        let server = SimulatedServer(versions: [.tls12], suites: [CipherSuite(rawValue: 0x009C)])
        let results = server.diagnose(ruleSet: .documented)
        let observations = results.map { test, _ in
            server.handshake(EffectivePolicy(configuration: test.configuration, host: "example.com", ruleSet: .documented).clientOffer(ruleSet: .documented))
        }
        let advice = HostAdvice(target: "https://example.com/", host: "example.com",
                                suggestion: ExceptionAdvisor.suggest(host: "example.com", results: results, observations: observations, ruleSet: .documented),
                                observations: observations, ruleSet: .documented)
        let pfs = advice.evidence.first { $0.key == "NSExceptionRequiresForwardSecrecy" }
        #expect(pfs != nil)
        let text = pfs?.observation ?? ""
        #expect(text.components(separatedBy: "TLS_RSA_WITH_AES_128_GCM_SHA256").count == 2, "\(text)")
    }

    /// Issue 25: advice to reissue a certificate never asks for SCTs (or the public 398-day
    /// limit) when the chain ends at a user-installed root; it still does for a public root.
    @Test func reissueUnderAUserInstalledRootAsksForNoSCTs() {
        let expired = [FailureReason(.trust(.expired), layer: .trust, "expired")]
        var user = testObservation()
        user.trust = TrustEvaluation(problems: [TrustProblem(kind: .expired, certificateIndex: 0, detail: "expired")], anchor: .user,
                                     evaluatedAt: referenceDate)
        let underUser = HostAdvice.serverFixes(for: expired, host: "example.com", seen: [user], ruleSet: .documented)
        let change = underUser.first { $0.change.hasPrefix("reissue the certificate") }?.change ?? ""
        #expect(change.contains("(today: expired)"), "\(change)")
        #expect(!change.contains("SCT"), "\(change)")
        #expect(!change.contains("at most 398 days"), "\(change)")
        #expect(change.contains("CT and the 398-day limit do not apply under a user-installed root"), "\(change)")
        #expect(!change.contains("publicly trusted"), "\(change)")
        var system = user
        system.trust.anchor = .system
        let underSystem = HostAdvice.serverFixes(for: expired, host: "example.com", seen: [system], ruleSet: .documented)
        #expect(underSystem.first { $0.change.hasPrefix("reissue the certificate") }?.change.contains("embedded SCTs") == true)
    }

    @Test func everyFailureClassGetsOneFix() {
        let reasons = [
            FailureReason(.trust(.expired), layer: .trust, "expired"),
            FailureReason(.certificateRule(CertificateRuleID.sha1Signature), layer: .trust, "sha1"),
            FailureReason(.certificateRule(CertificateRuleID.subjectAltNameMissing), layer: .trust, "no san"),
            FailureReason(.trust(.incompleteChain), layer: .trust, "the issuer of certificate 0 was not served"),
            FailureReason(.trust(.untrustedRoot), layer: .trust, "unknown root"),
            FailureReason(.handshakeFailed(.noSharedProtocol), layer: .handshake, "no protocol"),
            FailureReason(.handshakeFailed(.noSharedCipher), layer: .handshake, "no suite"),
        ]
        let fixes = HostAdvice.serverFixes(for: reasons + reasons, host: "example.com", seen: [], ruleSet: .documented)
        #expect(fixes.count == 5, "one per class, each once: \(fixes.map(\.change))")
        #expect(fixes.allSatisfy { $0.keys.isEmpty && !$0.nginx.isEmpty && !$0.apache.isEmpty && !$0.haproxy.isEmpty })
        let reissue = fixes.first { $0.change.hasPrefix("reissue the certificate for example.com") }
        #expect(reissue?.change.contains("(today: expired, a SHA-1 signature, no subjectAltName)") == true, "\(reissue?.change ?? "")")
        #expect(fixes.contains { $0.change.hasPrefix("serve the full chain") && $0.change.contains("the issuer of certificate 0 was not served") })
        #expect(fixes.contains { $0.change.hasPrefix("get a certificate from a CA in Apple's trust store") })
        #expect(fixes.contains { $0.change.hasPrefix("enable TLS 1.2 and TLS 1.3") })
        #expect(fixes.contains { $0.change.hasPrefix("the server speaks no suite any Apple client offers: enable ECDHE") })
    }
}

/// The leaf key-size table is rule-set data (RuleSet.leafMinimumKeyBits) read by the load check
/// and the advice alike, compared in whole bytes as Apple's code does
/// (SecCertificateIsAtLeastMinKeySize); the advice used to compare bits and disagreed at 2041-2047.
@Suite struct LeafKeySizeAgreementTests {
    @Test(arguments: [(2047, false), (2040, true)])
    func adviceAndVerdictAgreeAtTheByteBoundary(bits: Int, tooSmall: Bool) {
        let observation = testObservation(suite: suite(0x009C), key: PublicKeyFacts(algorithm: .rsa, bits: bits))
        let exception = DomainException(allowsInsecureHTTPLoads: true, requiresForwardSecrecy: false)
        let fixes = HostAdvice.fixes(for: exception, seen: [observation], ruleSet: .documented)
        let blamesKey = fixes.contains { $0.change.contains("is below 2048 bits") }
        #expect(blamesKey == tooSmall, "\(fixes.map(\.change))")
        let policy = EffectivePolicy(configuration: ATSConfiguration(exceptionDomains: ["example.com": DomainException()]),
                                     host: "example.com", ruleSet: .documented)
        let verdict = ATSEvaluator.evaluate(.success(observation), under: policy, ruleSet: .documented, certificateViolations: [])
        #expect(verdict.reasons.contains { $0.kind == .leafKeyTooSmall } == tooSmall)
    }

    @Test func theTableIsRuleSetData() {
        var rules = RuleSet.documented
        #expect(rules.leafKeyShortfall(PublicKeyFacts(algorithm: .ec, bits: 224)) == 256)
        #expect(rules.leafKeyShortfall(PublicKeyFacts(algorithm: .ed25519, bits: 256)) == nil)
        rules.leafMinimumKeyBits[.rsa] = 3072
        #expect(rules.leafKeyShortfall(PublicKeyFacts(algorithm: .rsa, bits: 2048)) == 3072)
    }
}

import Foundation
import Testing
import TLSFacts
@testable import ATSPolicy
import ATSPolicyFixtures

@Suite struct EvaluatorTests {
    func judge(_ observation: Observation, _ exception: DomainException? = nil, allowAll: Bool = false,
               ruleSet: RuleSet = .documented, violations: [CertificateRuleViolation] = []) -> Verdict {
        let config = ATSConfiguration(allowsArbitraryLoads: allowAll, exceptionDomains: exception.map { ["example.com": $0] } ?? [:])
        let policy = EffectivePolicy(configuration: config, host: "example.com", ruleSet: ruleSet)
        return ATSEvaluator.evaluate(.success(observation), under: policy, ruleSet: ruleSet, certificateViolations: violations)
    }

    func judge(_ failure: ProbeFailure, ruleSet: RuleSet = .documented, allowAll: Bool = false) -> Verdict {
        let policy = EffectivePolicy(configuration: ATSConfiguration(allowsArbitraryLoads: allowAll), host: "example.com", ruleSet: ruleSet)
        return ATSEvaluator.evaluate(.failure(failure), under: policy, ruleSet: ruleSet, certificateViolations: [])
    }

    @Test func modernServerPasses() {
        let verdict = judge(testObservation())
        #expect(verdict.passed && verdict.reasons.isEmpty && verdict.error == nil)
        #expect(judge(testObservation(version: .tls13, suite: suite(0x1301))).passed)
    }

    @Test(arguments: [
        // Whole bytes, as Apple compares: 2047 bits occupy 256 bytes and pass, 2040 (255 bytes) fails.
        (PublicKeyFacts(algorithm: .rsa, bits: 2040), false), (PublicKeyFacts(algorithm: .rsa, bits: 2047), true),
        (PublicKeyFacts(algorithm: .rsa, bits: 2048), true),
        (PublicKeyFacts(algorithm: .rsa, bits: 1024), false), (PublicKeyFacts(algorithm: .ec, bits: 256, curve: "prime256v1"), true),
        (PublicKeyFacts(algorithm: .ec, bits: 224, curve: "secp224r1"), false), (PublicKeyFacts(algorithm: .ec, bits: 384), true),
    ])
    func leafKeySize(key: PublicKeyFacts, passes: Bool) {
        let verdict = judge(testObservation(key: key))
        #expect(verdict.passed == passes)
        if !passes {
            #expect(verdict.reasons.map(\.kind) == [.leafKeyTooSmall])
            #expect(verdict.reasons.first?.message == "leaf \(key.algorithm.rawValue) key \(key.bits) bits < \(key.algorithm == .rsa ? 2048 : 256)")
            #expect(verdict.error?.code == -1200 && verdict.error?.streamErrorCode == -9883)
        }
        // Dropped with NSExceptionRequiresForwardSecrecy = NO (the doc), and with ATS off.
        #expect(judge(testObservation(key: key), DomainException(requiresForwardSecrecy: false)).passed)
        #expect(judge(testObservation(key: key), allowAll: true).passed)
    }

    @Test func leafSignatureHash() {
        let sha1 = judge(testObservation(hash: .sha1))
        #expect(!sha1.passed)
        #expect(sha1.reasons.map(\.kind) == [.leafSignatureHashWeak])
        #expect(sha1.reasons.first?.message.contains("SHA1") == true)
        #expect(sha1.error?.streamErrorCode == -9884)
        #expect(judge(testObservation(hash: .sha384)).passed)
        #expect(judge(testObservation(hash: .sha1), DomainException(requiresForwardSecrecy: false)).passed == false)
        // ATS off: only 2A would catch it, through the certificate rules.
        #expect(judge(testObservation(hash: .sha1), allowAll: true).passed)
        let violation = CertificateRuleViolation(rule: "sha1-signature", certificateIndex: 0, detail: "leaf CN=example.com is signed with SHA-1")
        let withRule = judge(testObservation(hash: .sha1), allowAll: true, violations: [violation])
        #expect(!withRule.passed)
        #expect(withRule.reasons.map(\.kind) == [.certificateRule("sha1-signature")])
        #expect(withRule.error?.code == -1202)
    }

    /// Every suite of either group under the documented and the 2022 rules, at TLS 1.2.
    @Test(arguments: [
        (UInt16(0xC02C), true, true), (0xC030, true, true), (0xC02B, true, true), (0xC02F, true, true),
        (0xC024, true, false), (0xC028, true, false), (0xC023, true, false), (0xC027, true, false),
        (0xC00A, true, true), (0xC009, true, true), (0xC013, true, true), (0xC014, false, true),
        (0xCCA8, false, true), (0xCCA9, false, true),
        (0x009C, false, false), (0x009D, false, false), (0x002F, false, false), (0x003C, false, false),
        (0x009E, false, false), (0xC012, false, false),
    ])
    func suiteUnderDefaultATS(code: UInt16, documented: Bool, appleCode2022: Bool) {
        let observation = testObservation(suite: suite(code))
        #expect(judge(observation, ruleSet: .documented).passed == documented, "\(suite(code)) documented")
        #expect(judge(observation, ruleSet: .appleCode2022).passed == appleCode2022, "\(suite(code)) ios15.4")
    }

    @Test(arguments: [(UInt16(0x009D), true, true), (0x009C, true, true), (0x0035, true, true), (0x002F, true, true),
                      (0x003D, true, false), (0x003C, true, false), (0x000A, false, false)])
    func suiteWithForwardSecrecyOff(code: UInt16, documented: Bool, appleCode2022: Bool) {
        let observation = testObservation(suite: suite(code))
        let pfsOff = DomainException(requiresForwardSecrecy: false)
        #expect(judge(observation, pfsOff, ruleSet: .documented).passed == documented, "\(suite(code)) documented")
        #expect(judge(observation, pfsOff, ruleSet: .appleCode2022).passed == appleCode2022, "\(suite(code)) ios15.4")
    }

    @Test func notForwardSecretMessage() {
        let verdict = judge(testObservation(suite: suite(0x009C)))
        #expect(verdict.reasons.map(\.kind) == [.notForwardSecret])
        #expect(verdict.reasons.first?.message == "server chose TLS_RSA_WITH_AES_128_GCM_SHA256, not forward secret")
        #expect(verdict.reasons.first?.layer == .ats)
    }

    @Test func protocolBelowMinimum() {
        let verdict = judge(testObservation(version: .tls11, suite: suite(0xC013)))
        #expect(verdict.reasons.map(\.kind) == [.protocolTooOld])
        #expect(verdict.reasons.first?.message == "server's highest protocol is TLS 1.1, below the minimum TLS 1.2")
        #expect(verdict.error?.streamErrorCode == -9836)
        #expect(judge(testObservation(version: .tls11, suite: suite(0xC013)), DomainException(minimumTLSVersion: "TLSv1.1")).passed)
        #expect(!judge(testObservation(version: .tls11, suite: suite(0xC013)), DomainException(minimumTLSVersion: "TLSv1.4")).passed)
    }

    @Test func ios26AllowAllLoadsAgainstTLS10() {
        // The handshake as it happens: the client offers TLS 1.2-1.3, the server answers protocol_version.
        let server = SimulatedServer(versions: [.tls10], suites: [suite(0xC013)])
        let policy = EffectivePolicy(configuration: ATSConfiguration(allowsArbitraryLoads: true), host: "example.com", ruleSet: .ios26)
        #expect(policy.clientOffer(ruleSet: .ios26).minVersion == .tls12)
        let verdict = ATSEvaluator.evaluate(server.handshake(policy.clientOffer(ruleSet: .ios26)), under: policy, ruleSet: .ios26, certificateViolations: [])
        #expect(!verdict.passed)
        #expect(verdict.error?.code == -1200 && verdict.error?.streamErrorCode == -9836)
        // The same observation judged directly.
        let direct = judge(testObservation(version: .tls10, suite: suite(0xC013)), allowAll: true, ruleSet: .ios26)
        #expect(direct.reasons.first?.message == "server's highest protocol is TLS 1.0, which the platform (ios26) no longer speaks")
        #expect(direct.reasons.first?.layer == .handshake)
        // ios15.4 still speaks TLS 1.0 with ATS off.
        #expect(judge(testObservation(version: .tls10, suite: suite(0xC013)), allowAll: true, ruleSet: .appleCode2022).passed)
    }

    @Test func trustProblemsFailEveryConfiguration() {
        let expired = testObservation(trustProblems: [TrustProblem(kind: .expired, certificateIndex: 0, detail: "leaf expired 2020-01-01")])
        for (exception, allowAll) in [(nil, false), (nil, true), (DomainException(allowsInsecureHTTPLoads: true, minimumTLSVersion: "TLSv1.0",
                                                                                  requiresForwardSecrecy: false), false)] {
            let verdict = judge(expired, exception, allowAll: allowAll)
            #expect(!verdict.passed)
            #expect(verdict.reasons.map(\.kind) == [.trust(.expired)])
            #expect(verdict.error?.code == -1202 && verdict.error?.streamErrorCode == -9814)
        }
        let cases: [(TrustProblem.Kind, Int)] = [(.untrustedRoot, -9813), (.selfSigned, -9813), (.nameMismatch, -9843),
                                                 (.invalidChain, -9807), (.notYetValid, -9815), (.incompleteChain, -9813)]
        for (kind, code) in cases {
            let verdict = judge(testObservation(trustProblems: [TrustProblem(kind: kind, detail: "x")]), allowAll: true)
            #expect(verdict.error?.streamErrorCode == code, "\(kind)")
        }
    }

    @Test func pins() {
        let config = ATSConfiguration(pinnedDomains: ["example.com": PinnedDomain(caIdentities: ["caSPKI"], leafIdentities: ["leafSPKI"])])
        let policy = EffectivePolicy(configuration: config, host: "example.com", ruleSet: .documented)
        #expect(ATSEvaluator.evaluate(.success(testObservation()), under: policy, ruleSet: .documented, certificateViolations: []).passed)
        let wrongLeaf = ATSEvaluator.evaluate(.success(testObservation(chainSPKIs: ["other", "caSPKI"])), under: policy, ruleSet: .documented, certificateViolations: [])
        #expect(wrongLeaf.reasons.map(\.kind) == [.pinMismatch])
        // A CA pin is not met by the leaf.
        let chain = testObservation(chainSPKIs: ["leafSPKI", "caSPKI"]).chain
        #expect(!PinningPolicy.evaluate(chain: chain, pins: PinnedDomain(caIdentities: ["leafSPKI"])).isSatisfied)
        #expect(PinningPolicy.evaluate(chain: chain, pins: PinnedDomain(caIdentities: ["x", "caSPKI"])).isSatisfied)
        // An empty identity array pins the domain to nothing: the load fails (SecPolicy.c
        // parseNSPinnedDomains returns an empty array; SecPolicyServer.c SecPolicyCheckCAspkiSHA256 finds no match).
        let empty = EffectivePolicy(configuration: ATSConfiguration(pinnedDomains: ["example.com": PinnedDomain(caIdentities: [])]), host: "example.com", ruleSet: .documented)
        #expect(ATSEvaluator.evaluate(.success(testObservation()), under: empty, ruleSet: .documented, certificateViolations: []).reasons.map(\.kind) == [.pinMismatch])
    }

    @Test(arguments: [
        (ProbeFailure.Kind.noSharedProtocol, TLSAlert?.some(.protocolVersion), -1200, Int?.some(-9836)),
        (.noSharedCipher, .handshakeFailure, -1200, -9824),
        (.noSharedCipher, nil, -1200, -9824),
        (.noSharedCipher, .insufficientSecurity, -1200, -9837),
        (.tlsAlert, TLSAlert(code: 112), -1200, -9865),
        (.tlsAlert, TLSAlert(code: 80), -1200, -9838),
        (.connectionRefused, nil, -1004, 61),
        (.nameNotResolved, nil, -1003, 8),
        (.connectTimeout, nil, -1001, -2102),
        (.handshakeTimeout, nil, -1001, -2102),
        (.notTLS, nil, -1200, -9806),
        (.closedDuringHandshake, nil, -1200, -9816),
        (.resetDuringHandshake, nil, -1200, -9816),
        (.clientRejected, nil, -1200, -9801),
        (.other, nil, -1200, -9800),
    ])
    func failureErrorCodes(kind: ProbeFailure.Kind, alert: TLSAlert?, code: Int, stream: Int?) {
        let verdict = judge(ProbeFailure(kind: kind, alert: alert, detail: "detail \u{1B}[31m"))
        #expect(!verdict.passed)
        #expect(verdict.error?.code == code)
        #expect(verdict.error?.streamErrorCode == stream)
        #expect(verdict.reasons.count == 1)
        #expect(verdict.reasons.first?.message.contains("\u{1B}") == false, "network text is escaped")
    }

    @Test func failureMessages() {
        let protocolFailure = judge(ProbeFailure(kind: .noSharedProtocol, alert: .protocolVersion, detail: ""))
        #expect(protocolFailure.reasons.first?.message == "server accepts no protocol in TLS 1.2-TLS 1.3 (protocol_version alert)")
        let cipher = judge(ProbeFailure(kind: .noSharedCipher, alert: .handshakeFailure, detail: ""))
        #expect(cipher.reasons.first?.message == "server has no cipher suite in common with the 14 offered (TLS 1.2-TLS 1.3) (handshake_failure alert)")
        #expect(judge(ProbeFailure(kind: .connectionRefused, detail: "")).reasons.first?.layer == .connection)
    }

    @Test func nscurlDescription() {
        let error = AppleError(code: -1200, streamErrorCode: -9836, streamErrorDomain: 3)
        #expect(error.nscurlDescription == "Error Domain=NSURLErrorDomain Code=-1200 \"An SSL error has occurred and a secure connection to the server cannot be made.\" UserInfo={_kCFStreamErrorCodeKey=-9836, NSLocalizedRecoverySuggestion=Would you like to connect to the server anyway?, _kCFStreamErrorDomainKey=3, NSLocalizedDescription=An SSL error has occurred and a secure connection to the server cannot be made.}")
        let untrusted = AppleError(code: -1202, streamErrorCode: -9813, streamErrorDomain: 3, host: "example.com").failing(url: "https://example.com/")
        #expect(untrusted.localizedDescription == "The certificate for this server is invalid. You might be connecting to a server that is pretending to be \u{201C}example.com\u{201D} which could put your confidential information at risk.")
        #expect(untrusted.nscurlDescription.contains("NSErrorFailingURLStringKey=https://example.com/, NSErrorFailingURLKey=https://example.com/"))
        #expect(AppleError(code: -1022).localizedDescription
                == "The resource could not be loaded because the App Transport Security policy requires the use of a secure connection.")
        #expect(AppleError(code: -1004).localizedDescription == "Could not connect to the server.")
        #expect(!AppleError(code: -1004, streamErrorCode: 61, streamErrorDomain: 1).nscurlDescription.contains("RecoverySuggestion"))
        #expect(AppleError(code: -1001).localizedDescription == "The request timed out.")
        #expect(AppleError(code: -1003).localizedDescription == "A server with the specified hostname could not be found.")
    }

    @Test func cleartextAndRedirects() {
        let https = Target(host: "example.com")
        let http = Target(scheme: .http, host: "example.com")
        let blocked = ATSEvaluator.evaluateRedirect(to: http, under: .default, ruleSet: .documented)
        #expect(!blocked.passed && blocked.error?.code == -1022 && blocked.reasons.map(\.kind) == [.cleartextBlocked])
        #expect(blocked.error?.failingURL == "http://example.com/")
        #expect(ATSEvaluator.evaluateRedirect(to: https, under: .default, ruleSet: .documented).passed)
        let insecure = ATSConfiguration(exceptionDomains: ["example.com": DomainException(allowsInsecureHTTPLoads: true)])
        #expect(ATSEvaluator.evaluateRedirect(to: http, under: insecure, ruleSet: .documented).passed)
        // A hop to another host is judged by that host's entry.
        #expect(!ATSEvaluator.evaluateRedirect(to: Target(scheme: .http, host: "other.com"), under: insecure, ruleSet: .documented).passed)
        #expect(ATSEvaluator.evaluateRedirect(to: http, under: ATSConfiguration(allowsArbitraryLoads: true), ruleSet: .documented).passed)
        // An http:// load itself.
        let policy = EffectivePolicy(configuration: .default, host: "example.com", scheme: .http, ruleSet: .documented)
        #expect(ATSEvaluator.evaluate(.success(testObservation()), under: policy, ruleSet: .documented, certificateViolations: []).error?.code == -1022)
    }

    @Test func httpFailureAfterHandshake() {
        let verdict = judge(testObservation(http: HTTPExchange(statusCode: nil, failure: "connection closed")))
        #expect(verdict.reasons.map(\.kind) == [.httpFailure])
        #expect(verdict.error?.code == -1005)
        // An HTTP error status is still a completed load, as for URLSession.
        #expect(judge(testObservation(http: HTTPExchange(statusCode: 500))).passed)
    }

    @Test func verdictJSONRoundTrip() throws {
        let verdict = judge(testObservation(version: .tls11, suite: suite(0x002F), key: PublicKeyFacts(algorithm: .rsa, bits: 1024),
                                            trustProblems: [TrustProblem(kind: .nameMismatch, detail: "no SAN")]))
        #expect(verdict.reasons.map(\.code) == ["protocolTooOld", "notForwardSecret", "trust.nameMismatch", "leafKeyTooSmall"])
        // The client hits the protocol first.
        #expect(verdict.error?.streamErrorCode == -9836)
        let data = try JSONEncoder().encode(verdict)
        #expect(try JSONDecoder().decode(Verdict.self, from: data) == verdict)
        #expect(String(decoding: data, as: UTF8.self).contains("\"kind\":\"trust.nameMismatch\""))
    }
}

@Suite struct CertificateRuleSetTests {
    @Test func violationsReadOnlyWhenTheRuleSetHasTheRules() {
        let violation = CertificateRuleViolation(rule: "rsa-key-size", certificateIndex: 0, detail: "leaf RSA key 1024 bits < 2048")
        var old = RuleSet.ios13
        old.appliesIOS13CertificateRules = false
        let policy = EffectivePolicy(configuration: ATSConfiguration(allowsArbitraryLoads: true), host: "example.com", ruleSet: old)
        let observation = testObservation(key: PublicKeyFacts(algorithm: .rsa, bits: 1024))
        #expect(ATSEvaluator.evaluate(.success(observation), under: policy, ruleSet: old, certificateViolations: [violation]).passed)
        let current = EffectivePolicy(configuration: ATSConfiguration(allowsArbitraryLoads: true), host: "example.com", ruleSet: .documented)
        let verdict = ATSEvaluator.evaluate(.success(observation), under: current, ruleSet: .documented, certificateViolations: [violation])
        #expect(verdict.reasons.map(\.code) == ["certificateRule.rsa-key-size"])
        #expect(verdict.error?.code == -1202 && verdict.error?.streamErrorCode == -9807)
    }
}

import Foundation
import Testing
import TLSFacts
@testable import ATSPolicy
import ATSPolicyFixtures

/// The registries of certificate rules and load checks, and the one failure-to-code table.
@Suite struct RuleRegistryTests {
    @Test func everyCertificateRuleIDIsRegisteredOnce() {
        let registered = AppleCertificatePolicy.rules.flatMap { type(of: $0).ids }
        #expect(Set(registered).count == registered.count)
        let declared: [CertificateRuleID] = [.subjectAltNameMissing, .serverAuthEKU, .validity825, .validity398, .rsaKeySize,
                                             .sha1Signature, .md5Signature, .certificateTransparency, .caServerAuthEKU,
                                             .rsaKeyTooLarge, .keyTypeUnsupported, .distrustedRoot, .ocspRevoked, .ecKeySize]
        #expect(Set(registered) == Set(declared))
    }

    @Test func loadChecksHaveDistinctIDsInTheClientsOrder() {
        #expect(ATSEvaluator.loadChecks.map(\.id.rawValue) == [
            "protocol-version", "cipher-suite", "certificate-trust", "certificate-rules", "pinning",
            "leaf-key-size", "leaf-signature-hash", "http-exchange",
        ])
    }

    /// Checks collect: a load that breaks four of them lists four reasons, in registration
    /// order, and the verdict's error is the first one's.
    @Test func everyFailingCheckIsReportedAndTheFirstGivesTheError() {
        let observation = testObservation(version: .tls11, suite: suite(0xC013), key: PublicKeyFacts(algorithm: .rsa, bits: 1024),
                                          hash: .sha1, trustProblems: [TrustProblem(kind: .expired, detail: "expired")])
        let policy = EffectivePolicy(configuration: .default, host: "example.com", ruleSet: .documented)
        let verdict = ATSEvaluator.evaluate(.success(observation), under: policy, ruleSet: .documented, certificateViolations: [])
        #expect(verdict.reasons.map(\.kind) == [.protocolTooOld, .trust(.expired), .leafKeyTooSmall, .leafSignatureHashWeak])
        #expect(verdict.error == AppleErrorCodes.error(for: .protocolTooOld, layer: .ats))
        #expect(verdict.error?.streamErrorCode == SecureTransportCode.peerProtocolVersion)
    }

    /// The table gives every failed handshake an NSURLError; alerts become errSSLPeer* codes.
    @Test func everyHandshakeFailureHasCodes() {
        let kinds: [ProbeFailure.Kind] = [.nameNotResolved, .nameResolutionTimeout, .connectionRefused, .networkUnreachable, .connectTimeout,
                                          .handshakeTimeout, .notTLS, .tlsAlert, .noSharedProtocol, .noSharedCipher,
                                          .closedDuringHandshake, .resetDuringHandshake, .clientRejected, .cancelled,
                                          .protocolViolation, .localResources, .other]
        let expected = [-1003, -1001, -1004, -1004, -1001, -1001, -1200, -1200, -1200, -1200, -1200, -1200, -1200, -999, -1200, -1200, -1200]
        #expect(kinds.map { AppleErrorCodes.error(for: .handshakeFailed($0), layer: .handshake).code } == expected)
        #expect(AppleErrorCodes.error(for: .handshakeFailed(.tlsAlert), layer: .handshake, alert: TLSAlert(code: 48)).streamErrorCode == -9831)
        #expect(AppleErrorCodes.error(for: .suiteNotAllowed, layer: .ats).streamErrorCode == -9882)
        #expect(AppleErrorCodes.error(for: .suiteNotAllowed, layer: .handshake).streamErrorCode == -9824)
        let rule = AppleErrorCodes.error(for: .certificateRule(.validity398), layer: .trust, host: "example.com")
        #expect(rule.code == -1202 && rule.osStatus == -67901 && rule.localizedDescription.contains("\u{201C}example.com\u{201D}"))
    }
}

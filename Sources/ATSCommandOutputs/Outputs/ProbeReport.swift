import ATSReport
import ATSEngine
import ATSPolicy
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

/// `probe --json`: see docs/json-schema.md. Everything the text shows: the handshake, trust,
/// Apple's certificate rules and the CT verdict, and which of them failed, as the engine
/// judged them (`ProbeJudgement`).
package struct ProbeReport: Encodable {
    package let schemaVersion = jsonSchemaVersion
    package let run: RunInfo
    package let target: TargetReport
    package let outcome: String
    package let observation: Observation?
    /// The negotiated suite named three ways (IANA, code point, OpenSSL).
    package let suite: SuiteReport?
    package let failure: ProbeFailure?
    /// Apple's certificate rules as of `evaluatedAt` (--at or now); nil without a handshake.
    package let appleRules: AppleRules?
    package let certificateTransparency: CTPolicyResult?
    /// The checks that failed: "trust", "apple-rules", "ct" (whatever --fail-on says).
    package let failed: [ProbeCheck]

    package struct SuiteReport: Encodable {
        package let ianaName: String
        package let codePoint: String
        package let openSSLName: String
    }

    package struct AppleRules: Encodable {
        package let met: Bool
        package let evaluatedAt: Date
        package let violations: [CertificateRuleViolation]
    }

    package init(_ judgement: ProbeJudgement, run: RunInfo) {
        self.run = run
        target = TargetReport(judgement.target)
        switch judgement.result {
        case .success(let observation):
            outcome = "handshake"; self.observation = observation; failure = nil
            suite = SuiteReport(ianaName: observation.cipherSuite.ianaName, codePoint: observation.cipherSuite.codePoint,
                                openSSLName: observation.openSSLCipherName)
        case .failure(let failure):
            outcome = "failure"; observation = nil; self.failure = failure; suite = nil
        }
        if let violations = judgement.appleRuleViolations, let at = judgement.evaluatedAt {
            appleRules = AppleRules(met: violations.isEmpty, evaluatedAt: at, violations: violations)
        } else {
            appleRules = nil
        }
        certificateTransparency = judgement.certificateTransparency
        failed = judgement.failed
    }
}

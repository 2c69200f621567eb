import ATSPolicy
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

/// `probe --json`: see docs/json-schema.md. Everything the text shows: the handshake, trust,
/// Apple's certificate rules and the CT verdict, and which of them failed, as the engine
/// judged them (ATSEngine's `ProbeJudgement`, which writes this document:
/// Documents/ProbeReport+Engine.swift). The text (ProbeText) reads this document too.
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
    /// The checks that failed: "trust", "apple-rules", "ct" (whatever --fail-on says): ATSEngine's
    /// `ProbeCheck` raw values.
    package let failed: [String]

    package struct SuiteReport: Encodable {
        package let ianaName: String
        package let codePoint: String
        package let openSSLName: String
    }

    package struct AppleRules: Encodable {
        package let met: Bool
        package let evaluatedAt: Date
        package let violations: [CertificateRuleViolation]

        package init(evaluatedAt: Date, violations: [CertificateRuleViolation]) {
            met = violations.isEmpty
            self.evaluatedAt = evaluatedAt
            self.violations = violations
        }
    }

    package init(run: RunInfo, target: TargetReport, result: ProbeResult, appleRules: AppleRules?,
                 certificateTransparency: CTPolicyResult?, failed: [String]) {
        self.run = run
        self.target = target
        switch result {
        case .success(let observation):
            outcome = "handshake"; self.observation = observation; failure = nil
            suite = SuiteReport(ianaName: observation.cipherSuite.ianaName, codePoint: observation.cipherSuite.codePoint,
                                openSSLName: observation.openSSLCipherName)
        case .failure(let failure):
            outcome = "failure"; observation = nil; self.failure = failure; suite = nil
        }
        self.appleRules = appleRules
        self.certificateTransparency = certificateTransparency
        self.failed = failed
    }
}

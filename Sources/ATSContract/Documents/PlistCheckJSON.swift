import ATSAdvice
import ATSPolicy
import PropertyList
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

/// `plist check --format json` (docs/plist.md). Versioned by schemaVersion. The text, Xcode and
/// SARIF outputs (PlistCheckText, PlistDiagnostics) and `app`'s per-host checks read it too; what
/// they need beyond the JSON is in render-only fields, left out of the encoding. ATSEngine writes
/// it from the plist-check run (Documents/PlistCheckJSON+Engine.swift).
package struct PlistCheckJSON: Encodable {
    package let schemaVersion = jsonSchemaVersion
    /// Set by the command: what the run was made with (docs/json-schema.md, "Run").
    package var run: RunInfo?
    package let file: String
    package let format: String
    package let ruleSet: String
    package let targets: [TargetJSON]
    package let findings: [TighteningFinding]
    package let notes: [String]
    /// Nothing to tighten.
    package let tight: Bool
    /// The tightened NSAppTransportSecurity dictionary, and the same as an XML plist.
    package let tightened: PropertyListValue
    package let tightenedPlist: String
    /// Render-only: the file has no NSAppTransportSecurity dictionary (the defaults apply).
    package let noDictionary: Bool

    private enum CodingKeys: String, CodingKey {
        case schemaVersion, run, file, format, ruleSet, targets, findings, notes, tight, tightened, tightenedPlist
    }

    package init(file: String, format: String, noDictionary: Bool, ruleSet: String, targets: [TargetJSON],
                 tightening: TighteningReport, tightenedPlist: String) {
        self.file = file
        self.format = format
        self.noDictionary = noDictionary
        self.ruleSet = ruleSet
        self.targets = targets
        findings = tightening.findings
        notes = tightening.notes.map(\.text)
        tight = tightening.isTight
        tightened = .dictionary(tightening.tightened)
        self.tightenedPlist = tightenedPlist
    }

    /// One target: `plist check`'s per-target object, which `app` embeds unchanged.
    package struct TargetJSON: Encodable {
        package let target: TargetReport
        package let governedBy: String
        package let entry: String?
        package let exemption: String?
        package let subdomainReadings: ReadingsJSON?
        package let loads: [LoadJSON]
        package let passes: Bool
        package let reachability: String?
        package let suggestion: DiagnosticsJSON.SuggestionJSON?
        package let notes: [String]
        /// What the entry's NSRequiresCertificateTransparency did for the observed chain
        /// (`KeyJudgement`): "redundant" or "requiresCertificateTransparency"; absent without the key.
        package let certificateTransparencyKey: KeyJudgement.CertificateTransparencyKeyEffect?
        /// The key is what failed the load (the tightened dictionary drops it).
        package let certificateTransparencyKeyFails: Bool

        /// Render-only: the part of the app's dictionary that applies (Apple's code, any depth).
        package let policy: EffectivePolicy
        /// Render-only: the handshake the text shows as the server's (the diagnostics' best).
        package let server: Observation?
        /// Render-only: why the host could not be reached (nscurl's default connection's first reason).
        package let unreachableReason: String?
        /// Render-only: what the host needs under the app's dictionary (`PlistTargetCheck.suggestion`),
        /// the one answer `plist check` and `app` word (`PlistCheckText.needs`); nil for an http:// target.
        package let need: ExceptionSuggestion?
        /// Render-only: `need` with its evidence and server fixes (`PlistTargetCheck.advice`); nil for http://.
        package let advice: HostAdvice?

        private enum CodingKeys: String, CodingKey {
            case target, governedBy, entry, exemption, subdomainReadings, loads, passes, reachability, suggestion, notes,
                 certificateTransparencyKey, certificateTransparencyKeyFails
        }

        /// `reachability`, `suggestion` (`need` as written), `need` and `advice` are nil for an
        /// http:// target: no TLS measured.
        package init(target: TargetReport, policy: EffectivePolicy, loads: [LoadJSON], passes: Bool, reachability: String?,
                     suggestion: DiagnosticsJSON.SuggestionJSON?, server: Observation?, unreachableReason: String?,
                     need: ExceptionSuggestion?, advice: HostAdvice?,
                     certificateTransparencyKey: KeyJudgement.CertificateTransparencyKeyEffect,
                     certificateTransparencyKeyFails: Bool) {
            self.target = target
            governedBy = policy.governedBy
            entry = policy.match?.key
            exemption = policy.exemption?.rawValue
            subdomainReadings = policy.subdomainDisagreement.map(ReadingsJSON.init)
            self.loads = loads
            self.passes = passes
            self.reachability = reachability
            self.suggestion = suggestion
            notes = policy.notes
            self.certificateTransparencyKey = certificateTransparencyKey == .absent ? nil : certificateTransparencyKey
            self.certificateTransparencyKeyFails = certificateTransparencyKeyFails
            self.policy = policy
            self.server = server
            self.unreachableReason = unreachableReason
            self.need = need
            self.advice = advice
        }

        /// The diagnostics found no TLS server answering.
        package var unreachable: Bool { reachability == "unreachable" }
    }

    /// Where the two NSIncludesSubdomains readings pick different entries.
    package struct ReadingsJSON: Encodable {
        package let anyDepth: String?
        package let oneLabel: String?
        package let message: String

        package init(_ disagreement: SubdomainDisagreement) {
            anyDepth = disagreement.anyDepth?.key
            oneLabel = disagreement.oneLabel?.key
            message = disagreement.message
        }
    }

    package struct LoadJSON: Encodable {
        package let reading: SubdomainReading
        package let entry: String?
        package let result: String
        package let verdict: Verdict
        package let hops: [DiagnosticsJSON.HopJSON]
        /// Render-only: the part of the dictionary that applies under this reading.
        package let policy: EffectivePolicy
        /// Render-only: each hop's verdict passed, in `hops`' order.
        package let hopsPassed: [Bool]

        private enum CodingKeys: String, CodingKey { case reading, entry, result, verdict, hops }

        package init(reading: SubdomainReading, policy: EffectivePolicy, verdict: Verdict, hops: [DiagnosticsJSON.HopJSON], hopsPassed: [Bool]) {
            self.reading = reading
            entry = policy.match?.key
            result = verdict.passed ? "PASS" : "FAIL"
            self.verdict = verdict
            self.hops = hops
            self.policy = policy
            self.hopsPassed = hopsPassed
        }
    }
}

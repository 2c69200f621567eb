import ATSReport
import ATSEngine
import ATSAdvice
import ATSPolicy
import PropertyList
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

/// `plist check --format json` (docs/plist.md). Versioned by schemaVersion.
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

    package init(file: String, document: PropertyListDocument, ruleSet: RuleSet, checks: [PlistTargetCheck],
         tightening: TighteningReport, tightenedPlist: String) {
        self.file = file
        format = document.format.rawValue
        self.ruleSet = ruleSet.id
        targets = checks.map(TargetJSON.init)
        findings = tightening.findings
        notes = tightening.notes.map(\.text)
        tight = tightening.isTight
        tightened = .dictionary(tightening.tightened)
        self.tightenedPlist = tightenedPlist
    }

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

        package init(_ check: PlistTargetCheck) {
            target = TargetReport(check.target)
            governedBy = check.policy.governedBy
            entry = check.policy.match?.key
            exemption = check.policy.exemption?.rawValue
            subdomainReadings = check.policy.subdomainDisagreement.map(ReadingsJSON.init)
            loads = check.loads.map(LoadJSON.init)
            passes = check.passes
            reachability = check.diagnostics?.reachability.rawValue
            suggestion = check.diagnostics.map { DiagnosticsJSON.SuggestionJSON(check.suggestion ?? $0.suggestion, ruleSet: $0.ruleSet) }
            notes = check.policy.notes
            let effect = check.certificateTransparencyKey
            certificateTransparencyKey = effect == .absent ? nil : effect
            certificateTransparencyKeyFails = check.certificateTransparencyKeyFails
        }
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

        package init(_ load: PlistTargetCheck.ReadingLoad) {
            reading = load.reading
            entry = load.policy.match?.key
            result = load.load.verdict.passed ? "PASS" : "FAIL"
            verdict = load.load.verdict
            hops = load.load.hops.map(DiagnosticsJSON.HopJSON.init)
        }
    }
}

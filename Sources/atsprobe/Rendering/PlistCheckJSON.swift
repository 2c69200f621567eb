import ATSEngine
import ATSAdvice
import ATSPolicy
import ATSReport
import PropertyList
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

/// `plist check --format json` (docs/plist.md). Versioned by schemaVersion.
struct PlistCheckJSON: Encodable {
    let schemaVersion = jsonSchemaVersion
    /// Set by the command: what the run was made with (docs/json-schema.md, "Run").
    var run: RunInfo?
    let file: String
    let format: String
    let ruleSet: String
    let targets: [TargetJSON]
    let findings: [TighteningFinding]
    let notes: [String]
    /// Nothing to tighten.
    let tight: Bool
    /// The tightened NSAppTransportSecurity dictionary, and the same as an XML plist.
    let tightened: PropertyListValue
    let tightenedPlist: String

    init(file: String, document: PropertyListDocument, ruleSet: RuleSet, checks: [PlistTargetCheck],
         tightening: TighteningReport, tightenedPlist: String) {
        self.file = file
        format = document.format.rawValue
        self.ruleSet = ruleSet.id
        targets = checks.map(TargetJSON.init)
        findings = tightening.findings
        notes = tightening.notes
        tight = tightening.isTight
        tightened = .dictionary(tightening.tightened)
        self.tightenedPlist = tightenedPlist
    }

    struct TargetJSON: Encodable {
        let target: TargetReport
        let governedBy: String
        let entry: String?
        let exemption: String?
        let subdomainReadings: ReadingsJSON?
        let loads: [LoadJSON]
        let passes: Bool
        let reachability: String?
        let suggestion: DiagnosticsJSON.SuggestionJSON?
        let notes: [String]

        init(_ check: PlistTargetCheck) {
            target = TargetReport(check.target)
            governedBy = check.policy.governedBy
            entry = check.policy.match?.key
            exemption = check.policy.exemption?.rawValue
            subdomainReadings = check.policy.subdomainDisagreement.map(ReadingsJSON.init)
            loads = check.loads.map(LoadJSON.init)
            passes = check.passes
            reachability = check.diagnostics?.reachability.rawValue
            suggestion = check.diagnostics.map { DiagnosticsJSON.SuggestionJSON($0.suggestion, ruleSet: $0.ruleSet) }
            notes = check.policy.notes
        }
    }

    /// Where the two NSIncludesSubdomains readings pick different entries.
    struct ReadingsJSON: Encodable {
        let anyDepth: String?
        let oneLabel: String?
        let message: String

        init(_ disagreement: SubdomainDisagreement) {
            anyDepth = disagreement.anyDepth?.key
            oneLabel = disagreement.oneLabel?.key
            message = disagreement.message
        }
    }

    struct LoadJSON: Encodable {
        let reading: SubdomainReading
        let entry: String?
        let result: String
        let verdict: Verdict
        let hops: [DiagnosticsJSON.HopJSON]

        init(_ load: PlistTargetCheck.ReadingLoad) {
            reading = load.reading
            entry = load.policy.match?.key
            result = load.load.verdict.passed ? "PASS" : "FAIL"
            verdict = load.load.verdict
            hops = load.load.hops.map(DiagnosticsJSON.HopJSON.init)
        }
    }
}

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

/// `--format json` for the diagnostics: see docs/json-schema.md. Stable; versioned by schemaVersion.
struct DiagnosticsJSON: Encodable {
    let schemaVersion = jsonSchemaVersion
    let target: TargetReport
    let ruleSet: String
    let handshakes: Int
    let wallMilliseconds: Double
    let reachability: String
    let defaultPasses: Bool
    let tests: [TestJSON]
    let suggestion: SuggestionJSON
    /// What the run was made with (docs/json-schema.md, "run").
    let run: RunInfo
    /// When this target's diagnostics ended (whole seconds).
    let finishedAt: Date

    init(_ report: DiagnosticsReport, run: RunInfo, finishedAt: Date = Date()) {
        self.run = run
        self.finishedAt = Date(timeIntervalSince1970: finishedAt.timeIntervalSince1970.rounded(.down))
        target = TargetReport(report.target)
        ruleSet = report.ruleSet
        handshakes = report.handshakes
        wallMilliseconds = (report.wallMilliseconds * 10).rounded() / 10
        reachability = report.reachability.rawValue
        defaultPasses = report.defaultPasses
        tests = report.tests.map(TestJSON.init)
        suggestion = SuggestionJSON(HostAdvice(report))
    }

    struct TestJSON: Encodable {
        let section: String
        let title: String
        let dictionary: PropertyListValue
        let result: String
        let verdict: Verdict
        let hops: [HopJSON]

        init(_ test: TestOutcome) {
            section = test.section
            title = test.title
            dictionary = .dictionary(test.configuration.propertyList)
            result = test.verdict.passed ? "PASS" : "FAIL"
            verdict = test.verdict
            hops = test.hops.map(HopJSON.init)
        }
    }

    struct HopJSON: Encodable {
        let url: String
        let offer: ClientOffer?
        let observation: Observation?
        let failure: ProbeFailure?
        /// The response to an http:// hop loaded in cleartext.
        let http: HTTPExchange?

        init(_ hop: HopOutcome) {
            url = hop.url
            offer = hop.offer
            http = hop.cleartext
            switch hop.result {
            case .success(let o)?: observation = o; failure = nil
            case .failure(let f)?: observation = nil; failure = f
            case nil: observation = nil; failure = nil
            }
        }
    }

    struct SuggestionJSON: Encodable {
        let kind: String
        let domain: String?
        let exception: PropertyListValue?
        /// Per key, the observation that made it necessary.
        let evidence: [KeyEvidence]?
        /// Per weakening key, the server change that would make it unnecessary.
        let fixes: [ServerFix]?
        let reason: String?

        /// Without the handshakes: evidence as the advisor gave it, fixes without the leaf's key type.
        init(_ suggestion: ExceptionSuggestion) {
            self.init(HostAdvice(target: "", host: "", suggestion: suggestion, observations: [], ruleSet: .default))
        }

        init(_ advice: HostAdvice) {
            switch advice.suggestion {
            case .none:
                kind = "none"; domain = nil; exception = nil; evidence = nil; fixes = nil; reason = nil
            case .exception(let d, let e, _):
                kind = "exception"; domain = d; exception = .dictionary(e.propertyList); evidence = advice.evidence
                fixes = advice.fixes; reason = nil
            case .impossible(let r):
                kind = "impossible"; domain = nil; exception = nil; evidence = nil; fixes = advice.fixes; reason = r
            }
        }
    }
}

import ATSAdvice
import ATSContract
import ATSPolicy
import PropertyList

// `plist check`'s document (ATSContract's PlistCheckJSON) written from the engine's run: the one
// place a PlistTargetCheck becomes the per-target object that `plist check` and `app` render.

extension PlistCheckJSON {
    package init(file: String, document: PropertyListDocument, ruleSet: RuleSet, checks: [PlistTargetCheck],
                 tightening: TighteningReport, tightenedPlist: String) {
        self.init(file: file, format: document.format.rawValue, noDictionary: document.atsDictionary == nil, ruleSet: ruleSet.id,
                  targets: checks.map(TargetJSON.init), tightening: tightening, tightenedPlist: tightenedPlist)
    }
}

extension PlistCheckJSON.TargetJSON {
    package init(_ check: PlistTargetCheck) {
        let diagnostics = check.diagnostics
        let need = check.suggestion
        var unreachableReason: String?
        if let diagnostics, diagnostics.reachability == .unreachable {
            unreachableReason = diagnostics.tests.test(.defaultConnection)?.verdict.reasons.first?.message
        }
        self.init(target: TargetReport(check.target), policy: check.policy, loads: check.loads.map(PlistCheckJSON.LoadJSON.init),
                  passes: check.passes, reachability: diagnostics?.reachability.rawValue,
                  suggestion: diagnostics.flatMap { report in need.map { DiagnosticsJSON.SuggestionJSON($0, ruleSet: report.ruleSet) } },
                  server: diagnostics?.bestObservation, unreachableReason: unreachableReason, need: need,
                  advice: check.advice,
                  certificateTransparencyKey: check.certificateTransparencyKey,
                  certificateTransparencyKeyFails: check.certificateTransparencyKeyFails)
    }
}

extension PlistCheckJSON.LoadJSON {
    package init(_ load: PlistTargetCheck.ReadingLoad) {
        self.init(reading: load.reading, policy: load.policy, verdict: load.load.verdict,
                  hops: load.load.hops.map(DiagnosticsJSON.HopJSON.init), hopsPassed: load.load.hops.map(\.verdict.passed))
    }
}

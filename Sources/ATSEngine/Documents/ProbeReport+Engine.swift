import ATSContract

// `probe`'s document (ATSContract's ProbeReport) written from the engine's judgement: the one
// place a ProbeJudgement becomes the JSON and the text's input.

extension ProbeReport {
    package init(_ judgement: ProbeJudgement, run: RunInfo) {
        var appleRules: AppleRules?
        if let violations = judgement.appleRuleViolations, let at = judgement.evaluatedAt {
            appleRules = AppleRules(evaluatedAt: at, violations: violations)
        }
        self.init(run: run, target: TargetReport(judgement.target), result: judgement.result, appleRules: appleRules,
                  certificateTransparency: judgement.certificateTransparency, failed: judgement.failed.map(\.rawValue))
    }
}

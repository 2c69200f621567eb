import ATSContract

// `diagnose --rules all`'s documents written from the engine's `RuleSetMatrix`: the one place a
// matrix becomes what the renderers read.

extension RuleSetMatrixDocument {
    /// Each rule set's report as its diagnostics document, its `run` naming that rule set.
    package init(_ matrix: RuleSetMatrix, run: RunInfo) {
        self.init(target: matrix.target.url, handshakes: matrix.handshakes, reports: matrix.reports.map { report in
            var info = run
            info.ruleSet = report.ruleSet.id
            return DiagnosticsJSON(report, run: info)
        })
    }
}

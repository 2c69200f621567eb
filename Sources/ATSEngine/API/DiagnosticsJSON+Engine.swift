import ATSAdvice
import ATSContract
import ATSPolicy
import ATSProbe
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The JSON contract written from the engine's values. The contract (ATSContract) knows no
// engine: these are the one place a run's report becomes a document.

extension DiagnosticsJSON {
    public init(_ report: DiagnosticsReport, run: RunInfo, finishedAt: Date = Date()) {
        let forecast = ForecastFields(report.forecast)
        self.init(target: TargetReport(report.target), ruleSet: report.ruleSet.id, handshakes: report.handshakes,
                  wallMilliseconds: report.wallMilliseconds, reachability: report.reachability.rawValue,
                  defaultPasses: report.defaultPasses, tests: report.tests.map(TestJSON.init),
                  suggestion: SuggestionJSON(report.advice), run: run, finishedAt: finishedAt,
                  missingIntermediate: report.missingIntermediateWarning.map {
                      MissingIntermediate(warning: $0, fix: TrustAdvice.missingIntermediateFix)
                  },
                  forecastWindow: forecast.window, forecast: forecast.changes, renewal: forecast.renewal)
        live = Live(wallMilliseconds: report.wallMilliseconds, server: report.bestObservation, widestOffer: report.widestProbe != nil,
                    ruleSet: report.ruleSet, groupsNotSent: report.ruleSet.groups.filter { !Prober.sendableGroups.contains($0) })
    }
}

extension DiagnosticsJSON.TestJSON {
    public init(_ test: TestOutcome) {
        self.init(section: test.section, title: test.title, configuration: test.configuration, verdict: test.verdict,
                  hops: test.hops.map(DiagnosticsJSON.HopJSON.init))
    }
}

extension DiagnosticsJSON.HopJSON {
    public init(_ hop: HopOutcome) {
        self.init(url: hop.url, offer: hop.offer, result: hop.result, http: hop.cleartext)
    }
}

import ATSContract
import ATSEngine
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The forecast's JSON (ATSContract's ForecastJSON.swift) written from the engine's values: the
// one place a TargetForecast becomes a document's fields.

extension ForecastWindowJSON {
    init(_ forecast: TargetForecast) {
        self.init(from: forecast.from, horizonSeconds: forecast.horizonSeconds, now: ForecastStateJSON(forecast.now))
    }
}

extension ForecastStateJSON {
    init(_ state: ForecastState) {
        self.init(verdict: state.verdict, exception: state.exception)
    }
}

extension ForecastChangeJSON {
    init(_ change: ForecastChange) {
        self.init(at: change.at, before: ForecastStateJSON(change.before), after: ForecastStateJSON(change.after),
                  causes: change.causes.map { Cause(kind: $0.kind, subject: $0.subject, sha256: $0.sha256, date: $0.date, source: $0.source) })
    }
}

extension RenewalJSON {
    init(_ renewal: RenewalCheck) {
        self.init(issuedAt: renewal.issuedAt, lifetimeSeconds: renewal.lifetimeSeconds, passes: renewal.passes,
                  violations: renewal.violations, advice: renewal.advice, failsFrom: renewal.failsFrom,
                  failsFromViolations: renewal.failsFrom == nil ? nil : renewal.failsFromViolations)
    }
}

/// The three fields a record carries with `--forecast`.
package struct ForecastFields {
    package let window: ForecastWindowJSON?
    package let changes: [ForecastChangeJSON]?
    package let renewal: RenewalJSON?

    package init(_ forecast: TargetForecast?) {
        window = forecast.map(ForecastWindowJSON.init)
        changes = forecast.map { $0.changes.map(ForecastChangeJSON.init) }
        renewal = forecast?.renewal.map(RenewalJSON.init)
    }
}

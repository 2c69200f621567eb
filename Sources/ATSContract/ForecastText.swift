import TextSupport
import ATSPolicy
import TLSFacts
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The forecast as every sink words it.
package enum ForecastText {
    /// "2027-01-31T12:00:00Z".
    package static func iso(_ date: Date) -> String {
        CivilCalendar.timestamp(secondsSinceEpoch: date.timeIntervalSince1970)
    }

    /// "in 12d 3h" for seconds ahead.
    package static func duration(_ seconds: Int) -> String {
        let days = seconds / 86_400, hours = seconds % 86_400 / 3_600, minutes = seconds % 3_600 / 60
        if days > 0 { return hours > 0 ? "\(days)d \(hours)h" : "\(days)d" }
        if hours > 0 { return minutes > 0 ? "\(hours)h \(minutes)m" : "\(hours)h" }
        return minutes > 0 ? "\(minutes)m" : "\(seconds)s"
    }

    /// "exception (NSExceptionMinimumTLSVersion=TLSv1.0)", "pass".
    package static func state(_ state: ForecastStateJSON) -> String {
        state.exception.isEmpty ? state.verdict.rawValue : "\(state.verdict.rawValue) (\(state.exception.joined(separator: ", ")))"
    }

    /// The FORECAST line's text after the label: each change, then the renewal, for one target.
    package static func lines(window: ForecastWindowJSON?, changes: [ForecastChangeJSON]?, renewal: RenewalJSON?) -> [String] {
        guard let window else { return [] }
        var lines: [String] = []
        let horizon = duration(window.horizonSeconds)
        if !window.judged {
            // Nothing observed: the forecast is unknown, not "no change" (issue 41).
            return ["unknown: the target could not be judged (\(window.now.verdict.rawValue)), so nothing is forecast"]
        }
        if let changes, !changes.isEmpty {
            for change in changes {
                let ahead = Int(change.at.timeIntervalSince(window.from))
                lines.append("\(iso(change.at)) (in \(duration(ahead))): \(state(change.before)) -> \(state(change.after)): \(change.causeText)")
            }
        } else {
            lines.append("no change within \(horizon) (until \(iso(window.from.addingTimeInterval(Double(window.horizonSeconds)))))")
        }
        if let renewal {
            if !renewal.passes {
                lines.append("renewal today fails: " + renewal.advice.joined(separator: "; "))
            } else if let failsFrom = renewal.failsFrom {
                lines.append("renewal fails from \(iso(failsFrom)): " + renewal.advice.joined(separator: "; "))
            } else {
                lines.append("renewal from the same CA passes")
            }
        }
        return lines
    }
}

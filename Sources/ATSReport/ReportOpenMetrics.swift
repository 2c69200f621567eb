import ATSEngine
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport

/// `--format openmetrics` (audit, report): the run as Prometheus' text exposition format
/// (version 0.0.4, what node_exporter's textfile collector reads; docs/monitoring.md). Per
/// target: the verdict (one series per verdict, 1 for the target's), seconds until the next
/// forecast change and until the first change for the worse, whether a renewal from the same CA
/// would be trusted, handshakes and wall time; then the run: targets by verdict, start and end.
/// The only label of unbounded value is `target` (the target's URL); `verdict` and `cause` take
/// values from fixed lists. Units are in the names (`_seconds`), as Prometheus' naming asks.
public enum ReportOpenMetrics {
    public static func render(_ report: Report) -> String {
        var out = ""
        func family(_ name: String, _ type: String, _ help: String, _ samples: [String]) {
            guard !samples.isEmpty else { return }
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n" + samples.map { $0 + "\n" }.joined()
        }
        let records = report.records
        family("atsprobe_target_verdict", "gauge",
               "1 for the target's verdict under Apple's App Transport Security (pass, exception, no-exception, unreachable, timeout, error), 0 for the others.",
               records.flatMap { record in
                   AuditVerdict.allCases.map { "atsprobe_target_verdict{\(labels(record)),verdict=\"\($0.rawValue)\"} \(record.verdict == $0 ? 1 : 0)" }
               })
        family("atsprobe_target_forecast_next_change_seconds", "gauge",
               "Seconds from the run's judgement until the target's verdict or required exception next changes (--forecast); absent when nothing changes within the horizon.",
               records.compactMap { record in
                   guard let window = record.document?.forecastWindow, let next = record.document?.forecast?.first else { return nil }
                   return "atsprobe_target_forecast_next_change_seconds{\(labels(record)),cause=\"\(next.causes.first?.kind.rawValue ?? "unknown")\"} \(Int(next.at.timeIntervalSince(window.from)))"
               })
        family("atsprobe_target_forecast_worse_seconds", "gauge",
               "Seconds from the run's judgement until the target first loads worse than now on Apple devices (--forecast); absent when it does not within the horizon.",
               records.compactMap { record in
                   guard let window = record.document?.forecastWindow, let worse = ReportForecast.worsening(record) else { return nil }
                   return "atsprobe_target_forecast_worse_seconds{\(labels(record)),cause=\"\(worse.causes.first?.kind.rawValue ?? "unknown")\"} \(Int(worse.at.timeIntervalSince(window.from)))"
               })
        family("atsprobe_target_forecast_horizon_seconds", "gauge",
               "How far ahead the target was forecast (--forecast).",
               records.compactMap { record in
                   record.document?.forecastWindow.map { "atsprobe_target_forecast_horizon_seconds{\(labels(record))} \($0.horizonSeconds)" }
               })
        family("atsprobe_target_renewal_trusted", "gauge",
               "1 when a certificate issued now by the same CA, with the same names, key and lifetime, would be trusted by Apple devices and stays so within the horizon; 0 when not.",
               records.compactMap { record in
                   guard let renewal = record.document?.renewal else { return nil }
                   return "atsprobe_target_renewal_trusted{\(labels(record))} \(renewal.passes && renewal.failsFrom == nil ? 1 : 0)"
               })
        family("atsprobe_target_handshakes", "gauge", "TLS handshakes made for the target in this run.",
               records.compactMap { record in record.document.map { "atsprobe_target_handshakes{\(labels(record))} \($0.handshakes)" } })
        family("atsprobe_target_duration_seconds", "gauge", "Wall time of the target's diagnostics in this run.",
               records.compactMap { record in
                   record.document.map { "atsprobe_target_duration_seconds{\(labels(record))} \(seconds($0.wallMilliseconds / 1000))" }
               })
        family("atsprobe_run_targets", "gauge", "Targets in the run, by verdict.",
               AuditVerdict.allCases.map { "atsprobe_run_targets{verdict=\"\($0.rawValue)\"} \(report.tally.count($0))" })
        family("atsprobe_run_handshakes", "gauge", "TLS handshakes made in the run.",
               ["atsprobe_run_handshakes \(records.compactMap(\.document).map(\.handshakes).reduce(0, +))"])
        family("atsprobe_run_start_timestamp_seconds", "gauge", "When the run started (Unix time).",
               report.run.map { ["atsprobe_run_start_timestamp_seconds \(Int($0.startedAt.timeIntervalSince1970))"] } ?? [])
        family("atsprobe_run_end_timestamp_seconds", "gauge", "When the run's last target ended (Unix time).",
               report.endedAt.map { ["atsprobe_run_end_timestamp_seconds \(Int($0.timeIntervalSince1970))"] } ?? [])
        return out
    }

    /// `target="..."`: the URL (or the input line for a line that never became a target), escaped
    /// as the exposition format asks (backslash, double quote, line feed), after the one rule for
    /// untrusted text (control and bidi characters).
    static func labels(_ record: AuditRecord) -> String {
        "target=\"\(labelValue(record.name))\""
    }

    static func labelValue(_ text: String) -> String {
        var out = ""
        for character in UntrustedText.escape(text, limit: 300) {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }

    /// A number of seconds with at most three decimals ("0.125").
    static func seconds(_ value: Double) -> String {
        let millis = Int((value * 1000).rounded())
        let whole = millis / 1000, fraction = millis % 1000
        guard fraction != 0 else { return "\(whole)" }
        var digits = String(fraction)
        while digits.count < 3 { digits = "0" + digits }
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(whole).\(digits)"
    }
}

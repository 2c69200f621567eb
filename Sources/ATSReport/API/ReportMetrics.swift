import ATSContract
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport

/// `--format openmetrics` and `--format prometheus` (audit, report; docs/monitoring.md): the run
/// as metrics, one renderer with two dialects. Per target: the verdict (one series per verdict, 1
/// for the target's), the forecast's next change and first change for the worse (seconds from the
/// run's judgement, and the instant as a Unix timestamp), whether a renewal from the same CA would
/// be trusted through the horizon, handshakes and wall time; then the run: targets by verdict,
/// start and end.
///
/// One series per target: records of one target (a target audited twice, a bad line twice, a
/// records file holding a target twice) fold into the last of them, and `target` label values
/// are never cut into a collision (`TargetLabels`). The only label of unbounded value is `target`
/// (the target's URL); `verdict` and `cause` take values from fixed lists; `--metrics-label`
/// adds fixed labels to every series (`MetricsLabels`).
public enum ReportMetrics {
    /// The two text formats. OpenMetrics 1.0 (`# UNIT` for the families whose name ends in a unit,
    /// HELP escaping `"` too, `# EOF` last); Prometheus' 0.0.4 text, what node_exporter's textfile
    /// collector and Pushgateway read. The families, names, labels and values are the same.
    public enum Dialect: Sendable, Hashable {
        case openMetrics, prometheus
    }

    /// The whole file for a run.
    public static func render(_ report: Report, dialect: Dialect, labels: MetricsLabels = MetricsLabels()) -> String {
        exposition(targetFamilies(report.records, labels: labels) + runFamilies(report, labels: labels), dialect: dialect)
    }

    /// The per-target families for `records` (`serve`: one target's), each series carrying
    /// `labels` first. Records naming one target fold into the last of them.
    package static func targetFamilies(_ records: [AuditRecord], labels: MetricsLabels) -> [MetricFamily] {
        let targets = TargetLabels(folding: records)
        func series(_ record: AuditRecord, _ own: [(String, String)] = []) -> [(String, String)] {
            labels.pairs + [("target", targets.label(record))] + own
        }
        let records = targets.records
        // A target that could not be judged (no handshake: unreachable, timed out, a bad line) has
        // an unknown forecast: no forecast series, rather than a "no change" read from its absence.
        let judged = records.filter { $0.document?.forecastWindow?.judged == true }
        return [
            MetricFamily(
                name: "atsprobe_target_verdict",
                help: "1 for the target's verdict under Apple's App Transport Security (pass, exception, no-exception, unreachable, timeout, error), 0 for the others.",
                samples: records.flatMap { record in
                    AuditVerdict.allCases.map { MetricSample(labels: series(record, [("verdict", $0.rawValue)]), value: record.verdict == $0 ? "1" : "0") }
                }),
            MetricFamily(
                name: "atsprobe_target_forecast_next_change_seconds", unit: "seconds",
                help: "Seconds from the run's judgement until the target's verdict or required exception next changes (--forecast); absent when nothing changes within the horizon or the target could not be judged.",
                samples: judged.compactMap { record in
                    guard let window = record.document?.forecastWindow, let next = record.document?.forecast?.first else { return nil }
                    return MetricSample(labels: series(record, [("cause", cause(next))]), value: whole(next.at.timeIntervalSince(window.from)))
                }),
            MetricFamily(
                name: "atsprobe_target_forecast_next_change_timestamp_seconds", unit: "seconds",
                help: "When the target's verdict or required exception next changes (--forecast; Unix time): the instant, which does not age between runs.",
                samples: judged.compactMap { record in
                    guard let next = record.document?.forecast?.first else { return nil }
                    return MetricSample(labels: series(record, [("cause", cause(next))]), value: timestamp(next.at))
                }),
            MetricFamily(
                name: "atsprobe_target_forecast_worse_seconds", unit: "seconds",
                help: "Seconds from the run's judgement until the target first loads worse than now on Apple devices (--forecast); absent when it does not within the horizon or the target could not be judged.",
                samples: judged.compactMap { record in
                    guard let window = record.document?.forecastWindow, let worse = ReportForecast.worsening(record) else { return nil }
                    return MetricSample(labels: series(record, [("cause", cause(worse))]), value: whole(worse.at.timeIntervalSince(window.from)))
                }),
            MetricFamily(
                name: "atsprobe_target_forecast_worse_timestamp_seconds", unit: "seconds",
                help: "When the target first loads worse than now on Apple devices (--forecast; Unix time), like blackbox_exporter's probe_ssl_earliest_cert_expiry.",
                samples: judged.compactMap { record in
                    guard let worse = ReportForecast.worsening(record) else { return nil }
                    return MetricSample(labels: series(record, [("cause", cause(worse))]), value: timestamp(worse.at))
                }),
            MetricFamily(
                name: "atsprobe_target_forecast_horizon_seconds", unit: "seconds",
                help: "How far ahead the target was forecast (--forecast); absent when the target could not be judged (its forecast is unknown).",
                samples: judged.compactMap { record in
                    record.document?.forecastWindow.map { MetricSample(labels: series(record), value: "\($0.horizonSeconds)") }
                }),
            MetricFamily(
                name: "atsprobe_target_renewal_trusted",
                help: "1 when a certificate issued now by the same CA, with the same names, key and lifetime, would be trusted by Apple devices and stays so within the horizon (the issuing CA's and the anchor's validity included); 0 when not.",
                samples: judged.compactMap { record in
                    guard let renewal = record.document?.renewal else { return nil }
                    return MetricSample(labels: series(record), value: renewal.passes && renewal.failsFrom == nil ? "1" : "0")
                }),
            MetricFamily(
                name: "atsprobe_target_handshakes", help: "TLS handshakes made for the target in this run.",
                samples: records.compactMap { record in record.document.map { MetricSample(labels: series(record), value: "\($0.handshakes)") } }),
            MetricFamily(
                name: "atsprobe_target_duration_seconds", unit: "seconds", help: "Wall time of the target's diagnostics in this run.",
                samples: records.compactMap { record in
                    record.document.map { MetricSample(labels: series(record), value: seconds($0.wallMilliseconds / 1000)) }
                }),
        ]
    }

    /// The run's families: targets by verdict, handshakes, start and end.
    static func runFamilies(_ report: Report, labels: MetricsLabels) -> [MetricFamily] {
        let records = report.records
        return [
            MetricFamily(name: "atsprobe_run_targets", help: "Targets in the run, by verdict.",
                         samples: AuditVerdict.allCases.map {
                             MetricSample(labels: labels.pairs + [("verdict", $0.rawValue)], value: "\(report.tally.count($0))")
                         }),
            MetricFamily(name: "atsprobe_run_handshakes", help: "TLS handshakes made in the run.",
                         samples: [MetricSample(labels: labels.pairs, value: "\(records.compactMap(\.document).map(\.handshakes).reduce(0, +))")]),
            MetricFamily(name: "atsprobe_run_start_timestamp_seconds", unit: "seconds", help: "When the run started (Unix time).",
                         samples: report.run.map { [MetricSample(labels: labels.pairs, value: timestamp($0.startedAt))] } ?? []),
            MetricFamily(name: "atsprobe_run_end_timestamp_seconds", unit: "seconds", help: "When the run's last target ended (Unix time).",
                         samples: report.endedAt.map { [MetricSample(labels: labels.pairs, value: timestamp($0))] } ?? []),
        ]
    }

    /// The families written in `dialect`: each family's HELP, TYPE (and UNIT in OpenMetrics) then
    /// its samples; a family without samples is left out; OpenMetrics ends with `# EOF`.
    package static func exposition(_ families: [MetricFamily], dialect: Dialect) -> String {
        var out = ""
        for family in families where !family.samples.isEmpty {
            out += "# HELP \(family.name) \(help(family.help, dialect: dialect))\n# TYPE \(family.name) \(family.type)\n"
            if dialect == .openMetrics, let unit = family.unit { out += "# UNIT \(family.name) \(unit)\n" }
            for sample in family.samples {
                out += family.name
                if !sample.labels.isEmpty {
                    out += "{" + sample.labels.map { "\($0.0)=\"\(labelValue($0.1))\"" }.joined(separator: ",") + "}"
                }
                out += " \(sample.value)\n"
            }
        }
        if dialect == .openMetrics { out += "# EOF\n" }
        return out
    }

    private static func cause(_ change: ForecastChangeJSON) -> String {
        change.causes.first?.kind.rawValue ?? "unknown"
    }

    /// HELP text: backslash and line feed escaped in both dialects, the double quote in OpenMetrics.
    static func help(_ text: String, dialect: Dialect) -> String {
        var out = ""
        for character in text {
            switch character {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\"" where dialect == .openMetrics: out += "\\\""
            default: out.append(character)
            }
        }
        return out
    }

    /// A label value (already through the one rule for untrusted text, `TargetLabels`), escaped as
    /// both formats ask: backslash, double quote, line feed.
    static func labelValue(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }

    /// Unix time in whole seconds.
    static func timestamp(_ date: Date) -> String { whole(date.timeIntervalSince1970) }

    /// Whole seconds (rounded down); a value beyond what an Int holds (a hostile record) clamped,
    /// never trapping.
    static func whole(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "0" }
        return "\(Int(max(-9.0e15, min(9.0e15, seconds.rounded(.down)))))"
    }

    /// A number of seconds with at most three decimals ("0.125").
    static func seconds(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let millis = Int(max(-9.0e15, min(9.0e15, (value * 1000).rounded())))
        let sign = millis < 0 ? "-" : ""
        let whole = abs(millis) / 1000, fraction = abs(millis) % 1000
        guard fraction != 0 else { return "\(sign)\(whole)" }
        var digits = String(fraction)
        while digits.count < 3 { digits = "0" + digits }
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(sign)\(whole).\(digits)"
    }
}

/// One metric family: its name, type (every atsprobe metric is a gauge: a run is a snapshot),
/// unit (OpenMetrics' `# UNIT`, the name's last word), help and samples.
package struct MetricFamily: Sendable {
    package var name: String
    package var type: String
    package var unit: String?
    package var help: String
    package var samples: [MetricSample]

    package init(name: String, type: String = "gauge", unit: String? = nil, help: String, samples: [MetricSample]) {
        self.name = name
        self.type = type
        self.unit = unit
        self.help = help
        self.samples = samples
    }
}

/// One series' labels, in order, unescaped (the exposition escapes them), and its value as written.
package struct MetricSample: Sendable {
    package var labels: [(String, String)]
    package var value: String

    package init(labels: [(String, String)], value: String) {
        self.labels = labels
        self.value = value
    }
}

/// Labels added to every series (`--metrics-label NAME=VALUE`, repeatable), so two runs' files in
/// one textfile directory never hold the same series. A name is Prometheus' (`[a-zA-Z_][a-zA-Z0-9_]*`),
/// not reserved (`__` prefix) nor one of atsprobe's own (`target`, `verdict`, `cause`), given once;
/// a value is 1 to 128 characters with no control or bidi character.
public struct MetricsLabels: Sendable, Hashable {
    package private(set) var names: [String] = []
    package private(set) var values: [String] = []

    /// atsprobe's own label names, refused as added labels.
    static let reserved: Set<String> = ["target", "verdict", "cause"]

    public init() {}

    /// `NAME=VALUE` pairs, in order; the error names the argument and says what is wrong.
    package init(parsing arguments: [String], option: String = "--metrics-label") throws(MetricsLabelError) {
        for argument in arguments {
            let shown = UntrustedText.escape(argument, limit: 200)
            guard let equals = argument.firstIndex(of: "=") else {
                throw MetricsLabelError(.notAPair, "\(option) '\(shown)' is not NAME=VALUE (e.g. run=nightly)")
            }
            let name = String(argument[..<equals]), value = String(argument[argument.index(after: equals)...])
            guard Self.isLabelName(name) else {
                throw MetricsLabelError(.badName, "\(option) '\(shown)': the name must be letters, digits and _ not starting with a digit")
            }
            guard !name.hasPrefix("__") else { throw MetricsLabelError(.badName, "\(option) '\(shown)': names starting with __ are Prometheus' own") }
            guard !Self.reserved.contains(name) else { throw MetricsLabelError(.reservedName, "\(option) '\(shown)': '\(name)' is a label atsprobe writes itself") }
            guard !names.contains(name) else { throw MetricsLabelError(.duplicateName, "\(option) '\(shown)': '\(name)' is given twice") }
            guard !value.isEmpty, value.unicodeScalars.count <= 128 else {
                throw MetricsLabelError(.badValue, "\(option) '\(shown)': the value must be 1 to 128 characters")
            }
            guard !value.unicodeScalars.contains(where: UntrustedText.isInvisibleOrControl) else {
                throw MetricsLabelError(.badValue, "\(option) '\(shown)': the value holds a control or bidi character")
            }
            names.append(name)
            values.append(value)
        }
    }

    /// The pairs in the order given.
    package var pairs: [(String, String)] { Array(zip(names, values)) }

    static func isLabelName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
    }
}

package struct MetricsLabelError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, for code: callers compare this, never `message`'s text.
    package enum Code: String, Sendable, Hashable, CaseIterable {
        /// Not NAME=VALUE.
        case notAPair
        /// A name Prometheus does not take, or one starting with __.
        case badName
        /// A label atsprobe writes itself.
        case reservedName
        case duplicateName
        /// A value empty, longer than 128 characters, or holding a control or bidi character.
        case badValue
    }

    package let code: Code
    /// For people: the option, the label and what is wrong.
    package let message: String
    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
    package var description: String { message }
}

/// The `target` label of each record, one per target: records with the same name (the URL, or the
/// input line for a line that never became a target) fold into the last of them, in the place of
/// the first; a value is the name through the one rule for untrusted text, and gets a hash suffix
/// (`#` and 16 hex digits of the name's FNV-1a) when it is longer than `limit` characters (cut
/// there) or when two names would otherwise read alike (escaping maps a bell and the text `\x07`
/// to the same characters). Two targets never share a series.
struct TargetLabels {
    /// The records kept, one per name, in first-appearance order.
    let records: [AuditRecord]
    private let labels: [String: String]

    static let limit = 300

    init(folding all: [AuditRecord]) {
        var position: [String: Int] = [:]
        var kept: [AuditRecord] = []
        for record in all {
            if let index = position[record.name] {
                kept[index] = record
            } else {
                position[record.name] = kept.count
                kept.append(record)
            }
        }
        records = kept
        var plain: [String: String] = [:]
        var readers: [String: Int] = [:]
        for record in kept {
            let escaped = UntrustedText.escape(record.name, limit: Self.limit)
            let value = record.name.unicodeScalars.count > Self.limit ? escaped + Self.hash(record.name) : escaped
            plain[record.name] = value
            readers[value, default: 0] += 1
        }
        var labels: [String: String] = [:]
        for (name, value) in plain {
            labels[name] = (readers[value] ?? 0) > 1 && !value.hasSuffix(Self.hash(name)) ? value + Self.hash(name) : value
        }
        self.labels = labels
    }

    func label(_ record: AuditRecord) -> String { labels[record.name] ?? UntrustedText.escape(record.name, limit: Self.limit) }

    /// "#" and the 64-bit FNV-1a of the name's UTF-8, 16 hex digits: stable across runs and machines.
    static func hash(_ name: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "#" + String(repeating: "0", count: 16 - hex.count) + hex
    }
}

import ATSContract
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The forecast (`--forecast`) in every report format, called from each renderer: the FORECAST
/// lines of the text, a timeline per origin in HTML, a section in Markdown, columns in CSV.
/// Every sink reads the same record fields and words them with `ForecastText`.
package enum ReportForecast {
    /// Whether any record carries a forecast (the formats add their part only then).
    static func present(_ report: Report) -> Bool { report.records.contains { $0.document?.forecastWindow != nil } }

    /// "    FORECAST ..." lines under a target's text entry (nscurl-style, one label per line).
    static func textLines(_ record: AuditRecord, indent: String = "    ") -> String {
        guard let document = record.document else { return "" }
        return ForecastText.lines(window: document.forecastWindow, changes: document.forecast, renewal: document.renewal)
            .map { "\(indent)FORECAST \(ReportEscaping.text($0))\n" }.joined()
    }

    /// The HTML timeline: per origin, each target's changes in time order, then the renewal check.
    static func html(_ report: Report) -> String {
        guard present(report) else { return "" }
        var out = "<section id=\"forecast\"><h2>Forecast</h2>\n<p class=\"key\">When each target's verdict or required exception changes, from what this run observed (no new handshake).</p>\n"
        var origins: [String] = []
        var byOrigin: [String: [AuditRecord]] = [:]
        for record in report.records where record.document?.forecastWindow != nil {
            let origin = Report.origin(record) ?? record.name
            if byOrigin[origin] == nil { origins.append(origin) }
            byOrigin[origin, default: []].append(record)
        }
        for origin in origins {
            out += "<h3>\(ReportEscaping.html(origin))</h3>\n<ol class=\"timeline\">\n"
            for record in byOrigin[origin]! {
                let lines = ForecastText.lines(window: record.document?.forecastWindow, changes: record.document?.forecast,
                                               renewal: record.document?.renewal)
                for line in lines {
                    out += "<li><span class=\"path\">\(ReportEscaping.html(Report.path(of: record, under: origin)))</span> \(ReportEscaping.html(line))</li>\n"
                }
            }
            out += "</ol>\n"
        }
        return out + "</section>\n"
    }

    /// The Markdown section: one bullet per change or renewal line, by target.
    static func markdown(_ report: Report) -> String {
        guard present(report) else { return "" }
        var out = "\n## Forecast\n\nWhen each target's verdict or required exception changes, from what this run observed (no new handshake).\n\n"
        for record in report.records where record.document?.forecastWindow != nil {
            let lines = ForecastText.lines(window: record.document?.forecastWindow, changes: record.document?.forecast,
                                           renewal: record.document?.renewal)
            for line in lines { out += "- \(ReportEscaping.markdown(record.name)): \(ReportEscaping.markdown(line))\n" }
        }
        return out
    }

    /// CSV columns appended after the others when the run forecast (docs/reports.md).
    package static let csvColumns = ["next_change_at", "next_change_verdict", "next_change_cause", "renewal"]

    static func csvCells(_ record: AuditRecord) -> [String] {
        guard let document = record.document, let window = document.forecastWindow else { return ["", "", "", ""] }
        // A target that could not be judged: its forecast is unknown, not "no change".
        guard window.judged else { return ["", "unknown", "", ""] }
        let next = document.forecast?.first
        let renewal: String
        if let check = document.renewal {
            renewal = check.passes ? (check.failsFrom.map { "fails from \(ForecastText.iso($0))" } ?? "passes") : "fails: " + check.advice.joined(separator: "; ")
        } else {
            renewal = ""
        }
        return [next.map { ForecastText.iso($0.at) } ?? "", next.map { ForecastText.state($0.after) } ?? "",
                next?.causeText ?? "", renewal]
    }

    /// The first change within `seconds` of the forecast's start after which the target loads worse
    /// than now (`--fail-on expiring:DURATION`, SARIF and JUnit warnings).
    static func worsening(_ record: AuditRecord, within seconds: Int? = nil) -> ForecastChangeJSON? {
        guard let document = record.document, let window = document.forecastWindow else { return nil }
        return document.forecast?.first { change in
            change.after.isWorse(than: window.now)
                && (seconds.map { change.at.timeIntervalSince(window.from) <= Double($0) } ?? true)
        }
    }
}

extension ReportForecast {
    /// Seconds from the forecast's start until the target first loads worse; nil when it does not.
    package static func secondsUntilWorse(_ record: AuditRecord) -> Int? {
        guard let window = record.document?.forecastWindow, let change = worsening(record) else { return nil }
        return Int(change.at.timeIntervalSince(window.from))
    }
}

extension AuditRecord {
    /// `--fail-on expiring:DURATION`: the target gets worse within `seconds` of its forecast's start.
    package func worsens(within seconds: Int) -> Bool { ReportForecast.worsening(self, within: seconds) != nil }

    /// Whether a renewal by the same CA fails now, or from a date within the horizon.
    package var renewalFails: Bool {
        guard let renewal = document?.renewal else { return false }
        return !renewal.passes || renewal.failsFrom != nil
    }
}

/// The forecast as CI sees it: a warning before a target fails (SARIF `warning`, JUnit a passing
/// testcase whose `<system-out>` says what will fail and when), so a pipeline can show it without
/// turning red; the run fails only when the verdict does (or with `--fail-on expiring:`).
extension ReportForecast {
    static let sarifRule = "forecast/worse"
    static let renewalRule = "forecast/renewal"

    /// SARIF results for one record: the first change for the worse, and a renewal that fails.
    static func sarifFindings(_ record: AuditRecord) -> [(rule: SARIFLog.Rule, finding: SARIFFinding)] {
        guard let url = record.target?.url else { return [] }
        let name = ReportEscaping.text(record.name, limit: 300)
        var out: [(SARIFLog.Rule, SARIFFinding)] = []
        if let change = worsening(record) {
            let rule = SARIFLog.Rule(id: sarifRule, shortDescription: .init(text: "the target will load worse on Apple devices within the forecast horizon"),
                                     defaultConfiguration: .init(level: .warning))
            let text = "\(name) from \(ForecastText.iso(change.at)): \(ForecastText.state(change.before)) -> \(ForecastText.state(change.after)), because \(change.causeText)"
            out.append((rule, SARIFFinding(rule: sarifRule, level: .warning, message: ReportEscaping.text(text), place: .url(url))))
        }
        if record.renewalFails, let renewal = record.document?.renewal {
            let rule = SARIFLog.Rule(id: renewalRule, shortDescription: .init(text: "a certificate renewed from the same CA would not be trusted by Apple devices"),
                                     defaultConfiguration: .init(level: .warning))
            let when = renewal.failsFrom.map { "from \(ForecastText.iso($0))" } ?? "today"
            let text = "\(name): renewal \(when) fails: " + renewal.advice.joined(separator: "; ")
            out.append((rule, SARIFFinding(rule: renewalRule, level: .warning, message: ReportEscaping.text(text), place: .url(url))))
        }
        return out
    }

    /// A JUnit testcase "forecast" for a record with a forecast: passing, with the forecast's
    /// lines in `<system-out>` ("WARNING: ..." first when the target will load worse).
    static func junitTestcase(_ record: AuditRecord, classname: String) -> String? {
        guard let document = record.document, document.forecastWindow != nil else { return nil }
        var lines = ForecastText.lines(window: document.forecastWindow, changes: document.forecast, renewal: document.renewal)
        if worsening(record) != nil || record.renewalFails { lines.insert("WARNING: this target will load worse on Apple devices; see below", at: 0) }
        return "    <testcase name=\"forecast\" classname=\"\(classname)\" time=\"0.000\">\n      <system-out>"
            + ReportEscaping.xml(lines.joined(separator: "\n"), limit: 8000, keepingLines: true) + "</system-out>\n    </testcase>\n"
    }
}

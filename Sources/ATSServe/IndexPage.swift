import ATSContract
import ATSReport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

/// `GET /`: the targets serve has probed, newest first, with their verdict and forecast, each
/// linking to its report and JSON. Every string from a target or a scrape goes through
/// `HTMLText.untrusted`; links carry the target percent-encoded, then HTML-escaped. No script.
enum IndexPage {
    static let style = """
        body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
        table { border-collapse: collapse; } td, th { border-bottom: 1px solid #ddd; padding: .3em .6em; text-align: left; vertical-align: top; }
        .pass { color: #0a6b2d; } .exception { color: #9a6200; } .no-exception, .unreachable, .timeout, .error { color: #b00020; }
        """

    /// One row, as kept in serve's history.
    struct Entry: Sendable {
        let target: String
        let module: String
        let startedAt: Date
        /// The verdict's name, or nil when the probe could not run.
        let verdict: String?
        /// The forecast, or why the probe could not run.
        let detail: String

        init(_ outcome: ProbeOutcome) {
            target = outcome.key.target
            module = outcome.key.module
            startedAt = outcome.startedAt
            switch outcome.result {
            case .judged(let document):
                verdict = document.verdict.rawValue
                detail = IndexPage.forecast(document)
            case .failed(let message):
                verdict = nil
                detail = message
            }
        }
    }

    static func render(_ outcomes: [Entry]) -> String {
        var out = HTMLText.pageStart(title: "atsprobe serve", heading: "Targets probed, newest first", style: style)
        if outcomes.isEmpty {
            out += "<p>Nothing probed yet. Scrape <code>/probe?target=URL</code>, or open <code>/report?target=URL</code>.</p>\n"
        } else {
            out += "<table>\n<tr><th>probed</th><th>target</th><th>module</th><th>verdict</th><th>forecast</th><th></th></tr>\n"
            for outcome in outcomes {
                let query = "target=\(percentEncoded(outcome.target))&module=\(percentEncoded(outcome.module))"
                out += "<tr><td>\(HTMLText.escaped(Report.iso(outcome.startedAt)))</td>"
                out += "<td>\(HTMLText.untrusted(outcome.target, limit: 300))</td>"
                out += "<td>\(HTMLText.untrusted(outcome.module, limit: 64))</td>"
                let verdict = outcome.verdict ?? "error"
                out += "<td class=\"\(HTMLText.escaped(verdict))\">\(HTMLText.escaped(verdict))</td>"
                out += "<td>\(HTMLText.untrusted(outcome.detail, limit: 600))</td>"
                out += "<td><a href=\"/report?\(HTMLText.escaped(query))\">report</a> <a href=\"/api/diagnose?\(HTMLText.escaped(query))\">JSON</a></td></tr>\n"
            }
            out += "</table>\n"
        }
        return out + "</body>\n</html>\n"
    }

    /// "pass until 2027-01-05T00:00:00Z, then no-exception (leaf expires)", or "no change within 90d".
    static func forecast(_ document: DiagnosticsJSON) -> String {
        guard let window = document.forecastWindow else { return "not forecast (forecast: off)" }
        guard let next = document.forecast?.first else { return "no change within \(window.horizonSeconds / 86_400)d" }
        return "\(next.before.verdict.rawValue) until \(Report.iso(next.at)), then \(next.after.verdict.rawValue) (\(next.causeText))"
    }

    /// RFC 3986's unreserved characters kept, every other byte %XX.
    static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            let scalar = Unicode.Scalar(byte)
            if (scalar.properties.isASCIIHexDigit || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar))
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~") {
                out.unicodeScalars.append(scalar)
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }
}

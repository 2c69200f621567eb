import ATSEngine
import TLSFacts

/// `--format markdown`: for tickets and pull-request comments (GitHub-flavoured tables). Text
/// from the network or the input is escaped so it cannot open a link, an image or a table cell.
public enum ReportMarkdown {
    public static func render(_ report: Report) -> String {
        var out = "# App Transport Security report\n\n"
        out += report.metadataRows.map { "- **\($0.0):** \(md($0.1))\n" }.joined()
        out += "\n## Summary\n\n| Verdict | Targets |\n|---|---:|\n"
        for verdict in AuditVerdict.allCases { out += "| \(ReportHTML.label(verdict)) | \(report.tally.count(verdict)) |\n" }
        if !report.tally.keysByCount.isEmpty {
            out += "\n| Exception key | Targets |\n|---|---:|\n"
            for (key, count) in report.tally.keysByCount { out += "| \(ReportEscaping.markdownCode(key)) | \(count) |\n" }
        }
        let titles = report.testTitles
        if !titles.isEmpty {
            out += "\n## nscurl's 16 tests\n\n| Target | Verdict | " + titles.indices.map { "\($0 + 1)" }.joined(separator: " | ") + " |\n"
            out += "|---|---|" + String(repeating: ":-:|", count: titles.count) + "\n"
            for record in report.records {
                let cells = titles.indices.map { index in
                    index < record.tests.count ? (record.tests[index].verdict.passed ? "✓ PASS" : "✗ FAIL") : "—"
                }
                out += "| \(md(record.name)) | \(ReportHTML.label(record.verdict)) | " + cells.joined(separator: " | ") + " |\n"
            }
            out += "\nTests: " + titles.enumerated().map { "\($0.offset + 1) \(md($0.element))" }.joined(separator: "; ") + ".\n"
        }
        out += "\n## Targets\n"
        for record in report.records {
            out += "\n### \(md(record.name)): \(ReportHTML.label(record.verdict))\n\n"
            if let reason = record.reason { out += "Why: \(md(reason))\n\n" }
            for other in record.otherReasons { out += "- \(md(other))\n" }
            if !record.otherReasons.isEmpty { out += "\n" }
            if let suggestion = record.suggestion, suggestion.kind == "exception", let domain = suggestion.domain,
               let exception = suggestion.exception {
                out += "Minimal exception (inside `NSExceptionDomains`):\n\n```xml\n"
                out += fence(ExceptionFragment.xml(domain: domain, exception)) + "```\n\n"
            }
            for fix in record.suggestion?.fixes ?? [] {
                let removes = fix.keys.isEmpty ? "" : " (removes \(fix.keys.map(ReportEscaping.markdownCode).joined(separator: ", ")))"
                out += "Server fix\(removes): \(md(fix.change))\n\n```\n"
                out += fence("# nginx\n" + fix.nginx.joined(separator: "\n") + "\n# Apache\n" + fix.apache.joined(separator: "\n") + "\n"
                             + (fix.haproxy.isEmpty ? "" : "# HAProxy\n" + fix.haproxy.joined(separator: "\n") + "\n"))
                out += "```\n\n"
            }
        }
        return out
    }

    static func md(_ text: String) -> String { ReportEscaping.markdown(text) }

    static func fence(_ text: String) -> String { ReportEscaping.markdownFence(text) }
}

import ATSContract
import TLSFacts

/// `--format markdown`: for tickets and pull-request comments (GitHub-flavoured tables). Text
/// from the network, the input or a record sits in code spans (`ReportEscaping.markdown`), so
/// nothing in it is live: no link, autolink, mention, emoji shortcode, image or HTML.
///
/// It fits one pull-request comment (GitHub's limit: 65,536 characters): the run, the summary
/// and the matrix (one row per origin) open; each target's details (reason, exception, server
/// fixes) folded in a `<details>` block, with a line saying so. When the details would pass
/// the limit, the targets that do not fit are left out, in input order from the end, and a
/// line names how many and where the whole report is.
public enum ReportMarkdown {
    /// A pull-request comment's limit, in characters; the report counts UTF-8 bytes, which are
    /// never fewer, so it stays within it whatever GitHub counts.
    package static let commentLimit = 65_536

    public static func render(_ report: Report) -> String {
        var out = "# App Transport Security report\n\n"
        out += report.metadataRows.map { "- **\($0.0):** \(md($0.1))\n" }.joined()
        out += "\n## Summary\n\n| Verdict | Targets |\n|---|---:|\n"
        for verdict in AuditVerdict.allCases { out += "| \(ReportHTML.label(verdict)) | \(report.tally.count(verdict)) |\n" }
        if !report.tally.keysByCount.isEmpty {
            out += "\n| Exception key | Targets |\n|---|---:|\n"
            for (key, count) in report.tally.keysByCount { out += "| \(ReportEscaping.markdownCell(key)) | \(count) |\n" }
        }
        let titles = report.testTitles
        if !titles.isEmpty {
            out += "\n## nscurl's \(titles.count) tests\n\nOne row per origin (scheme, host, port), its URLs under it.\n\n"
            out += "| Target | Verdict | " + titles.indices.map { "\($0 + 1)" }.joined(separator: " | ") + " |\n"
            out += "|---|---|" + String(repeating: ":-:|", count: titles.count) + "\n"
            for row in report.originRows {
                let cells = row.cells.map { $0.map { $0 ? "✓ PASS" : "✗ FAIL" } ?? "—" }
                out += "| \(targetCell(row, report)) | \(ReportHTML.label(row.verdict)) | " + cells.joined(separator: " | ") + " |\n"
            }
            out += "\nTests: " + titles.enumerated().map { "\($0.offset + 1) \(md($0.element))" }.joined(separator: "; ") + ".\n"
        }
        out += ReportForecast.markdown(report)
        guard !report.records.isEmpty else { return out }
        let details = report.records.map(self.details)
        let folded = "\n## Targets\n\nEach target's details (why, the minimal exception, the server fixes) are folded: open a target to read them.\n"
        // What is left for the details, keeping room for the line that says some were left out.
        let leftOutLine = { (count: Int) in
            "\n\(count) of \(report.records.count) targets' details are left out to fit a pull-request comment (\(commentLimit) characters): `atsprobe report` of the records with `--format html` has them all.\n"
        }
        var budget = commentLimit - out.utf8.count - folded.utf8.count - leftOutLine(report.records.count).utf8.count
        var kept = 0
        for detail in details {
            guard detail.utf8.count <= budget else { break }
            budget -= detail.utf8.count
            kept += 1
        }
        out += folded + details.prefix(kept).joined()
        if kept < details.count { out += leftOutLine(details.count - kept) }
        return out
    }

    /// The matrix's first cell: the target, or the origin and its URLs' paths (at most five named).
    static func targetCell(_ row: Report.OriginRow, _ report: Report) -> String {
        guard row.members.count > 1 else { return cell(report.records[row.members[0]].name) }
        let paths = row.members.prefix(5).map { cell(Report.path(of: report.records[$0], under: row.origin)) }
        let more = row.members.count > 5 ? ", and \(row.members.count - 5) more" : ""
        return "\(cell(row.origin)) (\(row.members.count) URLs: " + paths.joined(separator: ", ") + more + ")"
    }

    /// One target, folded: the summary line is HTML (inside the tag), the body Markdown.
    static func details(_ record: AuditRecord) -> String {
        // HTML inside the tag: the name in <code>, where GitHub makes no mention or link either.
        var out = "\n<details><summary><code>\(ReportEscaping.html(record.name))</code>: \(ReportHTML.label(record.verdict))</summary>\n\n"
        if let reason = record.reason { out += "Why: \(md(reason))\n\n" }
        for other in record.otherReasons { out += "- \(md(other))\n" }
        if !record.otherReasons.isEmpty { out += "\n" }
        if let suggestion = record.suggestion, suggestion.kind == "exception", let domain = suggestion.domain,
           let exception = suggestion.exception {
            out += "Minimal exception (inside `NSExceptionDomains`):\n\n```xml\n"
            out += fence(ExceptionFragment.xml(domain: domain, exception)) + "```\n\n"
        }
        for fix in record.suggestion?.fixes ?? [] {
            let removes = fix.keys.isEmpty ? "" : " (removes \(fix.keys.map(ReportEscaping.markdown).joined(separator: ", ")))"
            out += "Server fix\(removes): \(md(fix.change))\n\n```\n"
            out += fence("# nginx\n" + fix.nginx.joined(separator: "\n") + "\n# Apache\n" + fix.apache.joined(separator: "\n") + "\n"
                         + (fix.haproxy.isEmpty ? "" : "# HAProxy\n" + fix.haproxy.joined(separator: "\n") + "\n"))
            out += "```\n\n"
        }
        return out + "</details>\n"
    }

    static func md(_ text: String) -> String { ReportEscaping.markdown(text) }

    static func cell(_ text: String) -> String { ReportEscaping.markdownCell(text) }

    static func fence(_ text: String) -> String { ReportEscaping.markdownFence(text) }
}

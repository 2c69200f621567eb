import ATSContract
import ATSPolicy
import TLSFacts

/// `--format html`: one self-contained page (inline CSS, no script, no network) to hand to a
/// client: the run, the counts, a targets x 16 tests matrix whose cells say PASS or FAIL in words
/// as well as colour, and per target the reason, the minimal exception and the server fix.
/// Every string from the network or the input is escaped.
public enum ReportHTML {
    public static func render(_ report: Report) -> String {
        var out = HTMLText.pageStart(title: "atsprobe report", heading: "App Transport Security report", style: style)
        out += "<section id=\"run\"><h2>Run</h2>\n<table class=\"meta\">\n"
        for (label, value) in report.metadataRows { out += "<tr><th scope=\"row\">\(h(label))</th><td>\(h(value))</td></tr>\n" }
        out += "</table></section>\n"

        out += "<section id=\"summary\"><h2>Summary</h2>\n<ul class=\"counts\">\n"
        for verdict in AuditVerdict.allCases {
            out += "<li class=\"v-\(verdict.rawValue)\"><span class=\"n\">\(report.tally.count(verdict))</span> \(label(verdict))</li>\n"
        }
        out += "</ul>\n"
        if report.tally.keysByCount.isEmpty {
            out += "<p>No target needs an exception.</p>\n"
        } else {
            out += "<table class=\"keys\"><caption>Exceptions needed</caption>\n<tr><th scope=\"col\">Key</th><th scope=\"col\">Targets</th></tr>\n"
            for (key, count) in report.tally.keysByCount { out += "<tr><td><code>\(h(key))</code></td><td>\(count)</td></tr>\n" }
            out += "</table>\n"
        }
        out += "</section>\n"

        let titles = report.testTitles
        out += "<section id=\"matrix\"><h2>nscurl's 16 tests</h2>\n<p class=\"key\">&#x2713; PASS, &#x2717; FAIL, &#x2014; not run. Numbers are the tests listed under the table. One row per origin (scheme, host, port), its URLs under it; URLs of one origin with different results are rows of their own.</p>\n<div class=\"scroll\"><table class=\"matrix\">\n<thead><tr><th scope=\"col\">Target</th><th scope=\"col\">Verdict</th>"
        for (index, title) in titles.enumerated() {
            out += "<th scope=\"col\" title=\"\(h(title))\"><span>\(index + 1)</span> \(h(short(title)))</th>"
        }
        out += "</tr></thead>\n<tbody>\n"
        for row in report.originRows {
            out += "<tr><th scope=\"row\">"
            if row.members.count == 1, let index = row.members.first {
                out += "<a href=\"#t\(index + 1)\">\(h(report.records[index].name))</a>"
            } else {
                out += "<span class=\"origin\">\(h(row.origin))</span> <span class=\"count\">\(row.members.count) URLs</span><ul class=\"urls\">"
                for index in row.members {
                    out += "<li><a href=\"#t\(index + 1)\">\(h(Report.path(of: report.records[index], under: row.origin)))</a></li>"
                }
                out += "</ul>"
            }
            out += "</th><td class=\"v-\(row.verdict.rawValue)\">\(label(row.verdict))</td>"
            for cell in row.cells {
                switch cell {
                case true?: out += "<td class=\"pass\" title=\"PASS\">&#x2713;</td>"
                case false?: out += "<td class=\"fail\" title=\"FAIL\">&#x2717;</td>"
                case nil: out += "<td class=\"none\">&#x2014;</td>"
                }
            }
            out += "</tr>\n"
        }
        out += "</tbody></table></div>\n"
        if !titles.isEmpty {
            out += "<ol class=\"legend\">\n" + titles.map { "<li>\(h($0))</li>\n" }.joined() + "</ol>\n"
        }
        out += "</section>\n"

        out += ReportForecast.html(report)
        out += "<section id=\"targets\"><h2>Targets</h2>\n"
        for (index, record) in report.records.enumerated() { out += target(record, anchor: index + 1) }
        out += "</section>\n</body>\n</html>\n"
        return out
    }

    static func target(_ record: AuditRecord, anchor: Int) -> String {
        var out = "<article id=\"t\(anchor)\"><h3>\(h(record.name)) <span class=\"badge v-\(record.verdict.rawValue)\">\(label(record.verdict))</span></h3>\n"
        if let input = record.input, input != record.target?.url {
            out += "<p class=\"input\">Input\(record.line.map { " line \($0)" } ?? ""): <code>\(h(input))</code></p>\n"
        }
        if let reason = record.reason { out += "<p class=\"reason\"><strong>Why:</strong> \(h(reason))</p>\n" }
        let failing = record.otherReasons
        if !failing.isEmpty {
            out += "<ul class=\"reasons\">\n" + failing.map { "<li>\(h($0))</li>\n" }.joined() + "</ul>\n"
        }
        if let suggestion = record.suggestion, suggestion.kind == "exception", let domain = suggestion.domain,
           let exception = suggestion.exception {
            out += "<h4>Minimal exception</h4>\n<pre class=\"plist\">\(lines(ExceptionFragment.xml(domain: domain, exception)))</pre>\n"
            if let evidence = suggestion.evidence, !evidence.isEmpty {
                out += "<ul class=\"evidence\">\n"
                for item in evidence { out += "<li><code>\(h(item.key))</code>: \(h(item.observation))</li>\n" }
                out += "</ul>\n"
            }
        }
        if let fixes = record.suggestion?.fixes, !fixes.isEmpty {
            out += "<h4>Server fix</h4>\n"
            for fix in fixes {
                let removes = fix.keys.isEmpty ? "" : " <span class=\"removes\">(removes \(h(fix.keys.joined(separator: ", "))))</span>"
                out += "<div class=\"fix\"><p>\(h(fix.change))\(removes)</p>\n<dl>\n"
                out += "<dt>nginx</dt><dd><pre>\(lines(fix.nginx.joined(separator: "\n")))</pre></dd>\n"
                out += "<dt>Apache</dt><dd><pre>\(lines(fix.apache.joined(separator: "\n")))</pre></dd>\n"
                if !fix.haproxy.isEmpty {
                    out += "<dt>HAProxy</dt><dd><pre>\(lines(fix.haproxy.joined(separator: "\n")))</pre></dd>\n"
                }
                out += "</dl></div>\n"
            }
        }
        return out + "</article>\n"
    }

    /// A verdict as every output names it (`AuditVerdict.name`, the JSON value), never a
    /// wording of its own.
    package static func label(_ verdict: AuditVerdict) -> String { verdict.name }

    /// "TLSv1.2 with PFS disabled and insecure HTTP allowed" -> "1.2 no PFS, HTTP", from the
    /// test's role (`DiagnosticRole.shortTitle`); a title that is not nscurl's as it is.
    static func short(_ title: String) -> String {
        NSCurlMatrix.role(titled: title)?.shortTitle ?? title
    }

    /// For <pre>: each line escaped on its own, so the line breaks (and tabs, as spaces) stay.
    static func lines(_ text: String) -> String {
        text.replacing("\t", with: "    ").split(separator: "\n", omittingEmptySubsequences: false)
            .map { h(String($0)) }.joined(separator: "\n")
    }

    /// Escapes for HTML text and attribute values, after escaping control and bidi characters.
    static func h(_ text: String) -> String { ReportEscaping.html(text) }

    static let style = """
    body { font: 14px/1.45 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #1d1d1f; margin: 2em; max-width: 80em; }
    h1 { font-size: 1.6em; margin: 0 0 .6em; }
    h2 { font-size: 1.25em; border-bottom: 1px solid #d2d2d7; padding-bottom: .2em; margin-top: 1.6em; }
    h3 { font-size: 1.05em; margin: 1.2em 0 .4em; word-break: break-all; }
    h4 { font-size: .95em; margin: .8em 0 .3em; }
    table { border-collapse: collapse; }
    th, td { border: 1px solid #d2d2d7; padding: .25em .5em; text-align: left; vertical-align: top; }
    table.meta th { background: #f5f5f7; font-weight: 600; }
    caption { text-align: left; font-weight: 600; padding-bottom: .2em; }
    ul.counts { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: .5em; }
    ul.counts li { border: 1px solid #d2d2d7; border-radius: 6px; padding: .3em .8em; }
    ul.counts .n { font-weight: 700; font-size: 1.2em; }
    .scroll { overflow-x: auto; }
    table.matrix { font-size: 12px; }
    table.matrix thead th { writing-mode: vertical-rl; transform: rotate(180deg); white-space: nowrap; font-weight: 600; }
    table.matrix thead th:first-child, table.matrix thead th:nth-child(2) { writing-mode: horizontal-tb; transform: none; vertical-align: bottom; }
    table.matrix tbody th { font-weight: normal; white-space: nowrap; }
    table.matrix .origin { font-weight: 600; }
    table.matrix .count { color: #6e6e73; }
    table.matrix ul.urls { list-style: none; margin: .1em 0 0; padding: 0; font-size: 11px; white-space: normal; }
    table.matrix ul.urls li { display: inline; }
    table.matrix ul.urls li:not(:last-child)::after { content: ", "; }
    td.pass { background: #e3f5e1; color: #1b5e20; text-align: center; font-weight: 700; }
    td.fail { background: #fde7e9; color: #8e1b24; text-align: center; font-weight: 700; }
    td.none { text-align: center; }
    p.key { font-size: 12px; color: #424245; }
    td.none { color: #86868b; }
    .v-pass { background: #e3f5e1; color: #1b5e20; }
    .v-exception { background: #fff4d6; color: #7a4b00; }
    .v-no-exception, .v-unreachable, .v-timeout, .v-error { background: #fde7e9; color: #8e1b24; }
    .badge { font-size: .8em; font-weight: 600; border-radius: 4px; padding: .1em .5em; margin-left: .4em; }
    ol.legend { columns: 2; font-size: 12px; color: #424245; }
    article { border-top: 1px solid #e8e8ed; padding-top: .2em; }
    pre { background: #f5f5f7; padding: .5em .7em; border-radius: 4px; overflow-x: auto; margin: .2em 0; white-space: pre-wrap; word-break: break-all; }
    .fix dl { display: grid; grid-template-columns: 6em 1fr; gap: .2em .6em; margin: .3em 0 .8em; }
    .fix dt { font-weight: 600; padding-top: .5em; }
    .fix dd { margin: 0; }
    .removes { color: #424245; }
    code { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: .95em; }
    @media print {
      body { margin: 0; max-width: none; font-size: 11px; }
      .scroll { overflow: visible; }
      article { break-inside: avoid; }
      td.pass, td.fail, .v-pass, .v-exception, .v-no-exception, .v-unreachable, .v-timeout, .v-error { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
    }
    """
}

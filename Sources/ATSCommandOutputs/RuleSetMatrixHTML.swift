import ATSReport
import TLSFacts

/// `diagnose --rules all --format html`: one self-contained page (inline CSS, no script, no
/// network) with a grid per target: nscurl's tests down, rule sets across in release order (each
/// headed by its releases; Apple's documentation last, set apart by a double rule), each cell PASS or
/// FAIL in words as well as colour; under it the default connection's verdict per rule set and
/// what the host needs under each. Every string from the input or the network is escaped.
package enum RuleSetMatrixHTML {
    package static func render(_ grids: [RuleSetMatrixGrid], run: RunInfo?) -> String {
        var out = HTMLText.pageStart(title: "atsprobe: which releases accept each target",
                                     heading: "Which releases accept each target", style: style)
        if let run {
            out += "<section id=\"run\"><h2>Run</h2>\n<table class=\"meta\">\n"
            for (label, value) in metadata(run) { out += "<tr><th scope=\"row\">\(h(label))</th><td>\(h(value))</td></tr>\n" }
            out += "</table></section>\n"
        }
        for (index, grid) in grids.enumerated() {
            out += "<section id=\"t\(index + 1)\"><h2>\(h(grid.target))</h2>\n"
            out += "<p class=\"key\">nscurl's tests under \(grid.ruleSets.count) rule sets, \(grid.handshakes) handshake\(grid.handshakes == 1 ? "" : "s"). &#x2713; PASS, &#x2717; FAIL, &#x2014; not run.</p>\n"
            out += "<div class=\"scroll\"><table class=\"grid\">\n<thead><tr><th scope=\"col\">Test</th>"
            let columns = grid.columns
            for column in columns {
                let doc = column.isRelease ? "" : " class=\"doc\""
                out += "<th scope=\"col\"\(doc)>\(h(column.ruleSet))<br><span class=\"releases\">\(h(column.header))</span></th>"
            }
            out += "</tr></thead>\n<tbody>\n"
            var section = ""
            for row in grid.rows {
                if row.section != section {
                    section = row.section
                    out += "<tr class=\"section\"><th scope=\"rowgroup\" colspan=\"\(grid.ruleSets.count + 1)\">\(h(section))</th></tr>\n"
                }
                out += "<tr><th scope=\"row\">\(h(row.title))</th>"
                for column in columns.indices {
                    let doc = columns[column].isRelease ? "" : " doc"
                    switch column < row.passed.count ? row.passed[column] : nil {
                    case true?: out += "<td class=\"pass\(doc)\">&#x2713; PASS</td>"
                    case false?: out += "<td class=\"fail\(doc)\">&#x2717; FAIL</td>"
                    case nil: out += "<td class=\"none\(doc)\">&#x2014;</td>"
                    }
                }
                out += "</tr>\n"
            }
            out += "</tbody></table></div>\n"
            out += "<p><strong>Default ATS connection:</strong> \(h(grid.defaultSummary))</p>\n<ul class=\"needs\">\n"
            for (column, needs) in zip(columns, grid.needs) {
                out += "<li><code>\(h(column.ruleSet))</code> (\(h(column.releases ?? column.header))): \(h(needs))</li>\n"
            }
            out += "</ul>\n"
            if grid.hasForecast {
                out += "<p><strong>Forecast, by rule set:</strong></p>\n<ul class=\"forecast\">\n"
                for (column, lines) in zip(columns, grid.forecasts) {
                    for line in lines { out += "<li><code>\(h(column.ruleSet))</code>: \(h(line))</li>\n" }
                }
                out += "</ul>\n"
            }
            out += "</section>\n"
        }
        out += "</body>\n</html>\n"
        return out
    }

    /// The run's metadata rows, as the audit report shows them.
    static func metadata(_ run: RunInfo) -> [(String, String)] {
        var rows: [(String, String)] = [("Tool", "\(run.tool) \(run.toolVersion)"), ("OpenSSL", run.openSSLVersion)]
        if let trustStore = run.trustStore { rows.append(("Trust store", trustStore)) }
        if let ctLogList = run.ctLogList { rows.append(("CT log list", ctLogList)) }
        rows.append(("Started", Report.iso(run.startedAt)))
        return rows
    }

    static func h(_ text: String) -> String { ReportEscaping.html(text) }

    static let style = """
    body { font: 14px/1.45 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #1d1d1f; margin: 2em; max-width: 80em; }
    h1 { font-size: 1.6em; margin: 0 0 .6em; }
    h2 { font-size: 1.25em; border-bottom: 1px solid #d2d2d7; padding-bottom: .2em; margin-top: 1.6em; word-break: break-all; }
    table { border-collapse: collapse; }
    th, td { border: 1px solid #d2d2d7; padding: .25em .5em; text-align: left; vertical-align: top; }
    table.meta th { background: #f5f5f7; font-weight: 600; }
    .scroll { overflow-x: auto; }
    table.grid { font-size: 12px; }
    table.grid tbody th { font-weight: normal; white-space: nowrap; }
    tr.section th { background: #f5f5f7; font-weight: 600; }
    td.pass { background: #e3f5e1; color: #1b5e20; text-align: center; font-weight: 700; white-space: nowrap; }
    td.fail { background: #fde7e9; color: #8e1b24; text-align: center; font-weight: 700; white-space: nowrap; }
    td.none { color: #86868b; text-align: center; }
    th .releases { font-weight: normal; font-size: 11px; white-space: nowrap; }
    th.doc, td.doc { border-left: 3px double #86868b; }
    p.key { font-size: 12px; color: #424245; }
    code { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: .95em; }
    @media print {
      body { margin: 0; max-width: none; font-size: 11px; }
      .scroll { overflow: visible; }
      td.pass, td.fail { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
    }
    """
}

import ATSReport
import ATSApp
import ATSAdvice
import ATSPolicy
import TLSFacts

/// `atsprobe app --format html`: one self-contained page (inline CSS, no script, nothing
/// fetched) with the sections of the Markdown report. Every string from the app or the network
/// goes through `h`: control and bidi characters escaped, then HTML's five special characters.
package enum AppHTML {
    package static func render(_ report: AppJSON) -> String {
        let inventory = report.inventory
        var out = HTMLText.pageStart(title: "atsprobe app: \(h(inventory.appName))",
                                     heading: "atsprobe app: \(h(inventory.appName))", style: style)
        out += "<p>Input <code>\(h(inventory.input))</code> (\(inventory.inputKind.rawValue)); "
        out += report.ruleSet.map { "rule set <code>\($0)</code>.</p>\n" } ?? "offline: nothing loaded.</p>\n"

        out += "<section id=\"declares\"><h2>What the app declares</h2>\n<table>\n<tr><th>Bundle</th><th>Kind</th><th>Identifier</th><th>Dictionary</th></tr>\n"
        for bundle in inventory.bundles {
            let dictionary = report.dictionaryCell(bundle, borrowed: { "uses \(h($0))&#x2019;s" }, key: { "<code>\(h($0))</code>" })
            out += "<tr><td>\(h(report.name(bundle.path)))</td><td>\(bundle.kind.rawValue)</td><td>\(h(bundle.identifier ?? ""))</td><td>\(dictionary)</td></tr>\n"
        }
        out += "</table>\n"
        var items: [String] = []
        for bundle in inventory.bundles {
            for finding in bundle.lint {
                items.append("<b>\(finding.severity.rawValue)</b> \(h(report.name(bundle.path))) <code>\(h(finding.keyPath))</code>: \(h(finding.message)) (fix: \(h(finding.fix)))")
            }
            for note in bundle.notes { items.append("note: \(h(report.name(bundle.path))): \(h(note))") }
        }
        items += inventory.notes.map { "note: \(h($0))" }
        out += list(items) + "</section>\n"

        out += "<section id=\"hosts\"><h2>What the app talks to</h2>\n<table>\n<tr><th>Host</th><th>Dictionary</th><th>Found in</th><th>Result</th></tr>\n"
        for host in inventory.hosts {
            let check = report.hostChecks.first { $0.host == host }?.check
            let result = AppJSON.result(check, pass: "<span class=\"pass\">PASS</span>", fail: "<span class=\"fail\">FAIL</span>")
            out += "<tr><td>\(h(host.target))</td><td>\(h(report.name(host.bundle)))</td><td>\(host.sources.map(h).joined(separator: ", "))</td><td>\(result)</td></tr>\n"
        }
        out += "</table>\n"
        if !inventory.filtered.isEmpty {
            out += "<p>Filtered (<code>--include HOST</code> checks one anyway):</p>\n<table>\n<tr><th>Host</th><th>Why</th><th>Found in</th></tr>\n"
            for host in inventory.filtered {
                out += "<tr><td>\(h(host.target))</td><td>\(h(host.filtered?.label ?? ""))</td><td>\(host.sources.map(h).joined(separator: ", "))</td></tr>\n"
            }
            out += "</table>\n"
        }
        out += "</section>\n"
        if report.offline { return out + "</body>\n</html>\n" }

        let failing = report.failing
        out += "<section id=\"failures\"><h2>Will fail</h2>\n"
        out += failing.isEmpty ? "<p>Nothing: every load passes under the app&#x2019;s dictionaries.</p>\n" : list(failing.map { item in
            let reason = AppJSON.firstReason(item.check).map(h) ?? "could not be reached"
            return "\(h(item.host.target)) under \(h(report.name(item.host.bundle)))&#x2019;s dictionary: \(reason). Fix: \(h(PlistCheckText.needs(item.check)))"
        } + report.neededFindings.map { result, finding in
            "\(h(report.name(result.bundle.path))) needs <code>\(h(finding.keyPath))</code>: \(h(finding.appValue)) &#x2192; \(h(finding.neededValue)): \(h(finding.message))"
        })
        out += "</section>\n<section id=\"unneeded\"><h2>What no host needs</h2>\n"
        let unneeded = report.unneededItems(finding: { name, finding in
            "\(h(name)): <b>\(finding.kind.rawValue)</b> <code>\(h(finding.keyPath))</code>: \(h(finding.appValue)) &#x2192; \(h(finding.neededValue)): \(h(finding.message))"
        }, entry: { name, entry in "\(h(name)): entry <code>\(h(entry))</code>: no host found in the app falls under it" })
        out += unneeded.isEmpty ? "<p>Nothing: every dictionary is as tight as its hosts allow.</p>\n" : list(unneeded)
        out += "</section>\n"

        for (result, plist) in report.tightenedDictionaries {
            out += "<section><h2>Tightened dictionary: \(h(report.name(result.bundle.path)))</h2>\n<pre>\(HTMLText.escaped(AppJSON.escapedLines(plist)))</pre></section>\n"
        }
        var fixes = ""
        for (item, advice) in report.hostsWithServerAdvice {
            fixes += "<h3>\(h(item.host.target))</h3>\n"
            if let reason = advice.impossibleReason { fixes += "<p>No exception makes it load: \(h(reason))</p>\n" }
            fixes += list(advice.fixes.map { fix in
                h(fix.change) + (fix.keys.isEmpty ? "" : " (removes \(fix.keys.map { "<code>\(h($0))</code>" }.joined(separator: ", ")))")
                    + "<br>nginx: <code>\(h(fix.nginx.joined(separator: " ")))</code><br>Apache: <code>\(h(fix.apache.joined(separator: " | ")))</code>"
                    + (fix.haproxy.isEmpty ? "" : "<br>HAProxy: <code>\(h(fix.haproxy.joined(separator: " | ")))</code>")
            })
        }
        if !fixes.isEmpty { out += "<section id=\"server-fixes\"><h2>Server fixes</h2>\n\(fixes)</section>\n" }
        return out + "</body>\n</html>\n"
    }

    package static let style = """
    body{font:15px/1.45 system-ui,sans-serif;margin:2em auto;max-width:70em;padding:0 1em;color:#222}
    table{border-collapse:collapse;margin:.5em 0}th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}
    code,pre{font:13px ui-monospace,monospace}pre{background:#f6f6f6;padding:.8em;overflow-x:auto}
    .pass{color:#176f2c;font-weight:600}.fail{color:#b00020;font-weight:600}
    """

    package static func list(_ items: [String]) -> String {
        items.isEmpty ? "" : "<ul>\n" + items.map { "<li>\($0)</li>\n" }.joined() + "</ul>\n"
    }

    /// Untrusted text as HTML text or attribute content.
    package static func h(_ text: String) -> String { HTMLText.untrusted(text, limit: 4096) }
}

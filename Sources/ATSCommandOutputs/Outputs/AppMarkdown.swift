import ATSReport
import ATSApp
import ATSAdvice
import ATSPolicy
import TextSupport
import TLSFacts

/// `atsprobe app --format markdown`: the report as a document to attach to a review or a ticket.
/// Text from the app or the network sits in code spans (ReportEscaping.markdown): control and
/// bidi characters escaped first, and nothing in it live, so a hostile name cannot add a link,
/// a mention, a table column or raw HTML. Self-contained so that a shared report renderer can replace it.
package enum AppMarkdown {
    package static func render(_ report: AppJSON) -> String {
        let inventory = report.inventory
        var out = "# atsprobe app: \(md(inventory.appName))\n\n"
        out += "Input \(md(inventory.input)) (\(inventory.inputKind.rawValue)); "
        out += report.ruleSet.map { "rule set `\($0)`.\n" } ?? "offline: nothing loaded.\n"

        out += "\n## What the app declares\n\n| bundle | kind | identifier | dictionary | lint |\n|---|---|---|---|---|\n"
        for bundle in inventory.bundles {
            let dictionary = report.dictionaryCell(bundle, borrowed: { "uses \(cell($0))'s" }, key: { cell($0) })
            let lint = bundle.lint.isEmpty ? "" : PlistLintText.count(bundle.lint)
            out += "| \(cell(report.name(bundle.path))) | \(bundle.kind.rawValue) | \(cell(bundle.identifier ?? "")) | \(dictionary) | \(lint) |\n"
        }
        let lintFindings = inventory.bundles.flatMap { bundle in bundle.lint.map { (bundle, $0) } }
        if !lintFindings.isEmpty {
            out += "\n"
            for (bundle, finding) in lintFindings {
                out += "- **\(finding.severity.rawValue)** \(md(report.name(bundle.path))) \(md(finding.keyPath)): \(md(finding.message)) (fix: \(md(finding.fix)))\n"
            }
        }
        let notes = inventory.bundles.flatMap { bundle in bundle.notes.map { "\(report.name(bundle.path)): \($0)" } } + inventory.notes
        for note in notes { out += "- note: \(md(note))\n" }

        out += "\n## What the app talks to\n\n| host | dictionary | found in | result |\n|---|---|---|---|\n"
        for host in inventory.hosts {
            let check = report.hostChecks.first { $0.host == host }?.check
            let result = AppJSON.result(check, pass: "PASS", fail: "FAIL")
            out += "| \(cell(host.target)) | \(cell(report.name(host.bundle))) | \(host.sources.map { cell($0) }.joined(separator: ", ")) | \(result) |\n"
        }
        if !inventory.filtered.isEmpty {
            out += "\nFiltered (`--include HOST` checks one anyway):\n\n| host | why | found in |\n|---|---|---|\n"
            for host in inventory.filtered {
                out += "| \(cell(host.target)) | \(cell(host.filtered?.label ?? "")) | \(host.sources.map { cell($0) }.joined(separator: ", ")) |\n"
            }
        }
        if report.offline { return out }

        out += "\n## Will fail\n\n"
        let failing = report.failing
        if failing.isEmpty { out += "Nothing: every load passes under the app's dictionaries.\n" }
        for item in failing {
            let reason = AppJSON.firstReason(item.check).map { md($0) } ?? "could not be reached"
            out += "- \(md(item.host.target)) under \(md(report.name(item.host.bundle)))'s dictionary: \(reason). Fix: \(md(PlistCheckText.needs(item.check)))\n"
        }
        for (result, finding) in report.neededFindings {
            out += "- \(md(report.name(result.bundle.path))) needs \(md(finding.keyPath)): \(md(finding.appValue)) -> \(md(finding.neededValue)): \(md(finding.message))\n"
        }

        out += "\n## What no host needs\n\n"
        let unneeded = report.unneededItems(finding: { name, finding in
            "\(md(name)): **\(finding.kind.rawValue)** \(md(finding.keyPath)): \(md(finding.appValue)) -> \(md(finding.neededValue)): \(md(finding.message))"
        }, entry: { name, entry in "\(md(name)): entry \(md(entry)): no host found in the app falls under it" })
        for item in unneeded { out += "- \(item)\n" }
        if unneeded.isEmpty { out += "Nothing: every dictionary is as tight as its hosts allow.\n" }

        for (result, plist) in report.tightenedDictionaries {
            out += "\n## Tightened dictionary: \(md(report.name(result.bundle.path)))\n\n```xml\n\(fence(AppJSON.escapedLines(plist)))```\n"
        }
        var fixes = ""
        for (item, advice) in report.hostsWithServerAdvice {
            fixes += "\n### \(md(item.host.target))\n\n"
            if let reason = advice.impossibleReason { fixes += "No exception makes it load: \(md(reason))\n\n" }
            for fix in advice.fixes {
                let removes = fix.keys.isEmpty ? "" : " (removes \(fix.keys.map { md($0) }.joined(separator: ", ")))"
                fixes += "- \(md(fix.change))\(removes)\n"
                fixes += "  - nginx: \(md(fix.nginx.joined(separator: " ")))\n  - Apache: \(md(fix.apache.joined(separator: " | ")))\n"
                if !fix.haproxy.isEmpty { fixes += "  - HAProxy: \(md(fix.haproxy.joined(separator: " | ")))\n" }
            }
        }
        if !fixes.isEmpty { out += "\n## Server fixes\n" + fixes }
        return out
    }

    /// Untrusted text in running Markdown: a code span (ReportEscaping.markdown).
    package static func md(_ text: String) -> String { ReportEscaping.markdown(text) }

    /// Untrusted text in a table cell (ReportEscaping.markdownCell).
    package static func cell(_ text: String) -> String { ReportEscaping.markdownCell(text) }

    /// A fenced block may not contain its own fence.
    package static func fence(_ text: String) -> String { text.replacing("```", with: "'''") }
}

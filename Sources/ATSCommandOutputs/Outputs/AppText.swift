import ATSReport
import ATSApp
import ATSAdvice
import ATSPolicy
import TextSupport
import TLSFacts

/// The person-readable `atsprobe app` report: what the app declares, what it talks to, then
/// (unless --offline) each load, the failures, what no host needs, the tightened dictionaries
/// and the server fixes. Everything read from the app or the network is escaped.
package enum AppText {
    package static func render(_ report: AppJSON, verbose: Bool, palette: Palette = Palette(enabled: false)) -> String {
        let inventory = report.inventory
        var out = "atsprobe app \(esc(inventory.input)) (\(inventory.inputKind.rawValue)): \(esc(inventory.appName))"
        out += report.ruleSet.map { ", rule set \($0)\n" } ?? ", offline\n"
        out += "\n" + declares(report)
        out += "\n" + talksTo(report)
        for note in inventory.notes { out += "note: \(esc(note))\n" }
        if report.offline {
            out += "\nOffline: nothing loaded. Without --offline each host above is loaded under its bundle's dictionary.\n"
            return out
        }
        for result in report.results where !result.checks.isEmpty {
            out += "\nLoads under \(esc(report.name(result.bundle.path)))'s dictionary\n"
            for check in result.checks {
                out += "\n" + PlistCheckText.target(check.check, verbose: verbose, palette: palette).split(separator: "\n", omittingEmptySubsequences: false)
                    .map { $0.isEmpty ? "" : "  " + $0 }.joined(separator: "\n")
            }
        }
        out += "\n" + failures(report)
        out += "\n" + unneeded(report)
        out += tightened(report)
        out += serverFixes(report)
        let checks = report.hostChecks
        let passing = checks.filter(\.check.passes).count
        // The counts of the sections above, by their names: "Will fail (N)", "What no host needs".
        let failing = report.failing.count, unneeded = report.unneededCount
        out += "\nSummary: \(passing) of \(checks.count) load\(checks.count == 1 ? " passes" : "s pass") under the app's dictionaries; "
        out += "\(failing) will fail; "
        out += unneeded == 0 ? "nothing to tighten\n" : "\(unneeded) item\(unneeded == 1 ? "" : "s") no host needs\n"
        return out
    }

    /// Step 2: each bundle, whose dictionary governs it, its lint.
    package static func declares(_ report: AppJSON) -> String {
        var out = "What the app declares\n"
        for bundle in report.inventory.bundles {
            var rows: [(String, String)] = [("Kind", bundle.kind.rawValue + (bundle.identifier.map { ", \(esc($0))" } ?? ""))]
            if bundle.dictionaryOwner != bundle.path {
                rows.append(("Dictionary", "none of its own: loads use \(esc(report.name(bundle.dictionaryOwner)))'s"))
            } else if let ats = bundle.atsDictionary {
                rows.append(("Dictionary", ats.isEmpty ? "NSAppTransportSecurity, empty" : "NSAppTransportSecurity: " + ats.keys.sorted().map(esc).joined(separator: ", ")))
            } else {
                rows.append(("Dictionary", "none: the ATS defaults"))
            }
            if let executable = bundle.executablePath { rows.append(("Executable", esc(executable))) }
            for finding in bundle.lint {
                rows.append(("Lint", "\(finding.severity.rawValue) \(esc(finding.keyPath)): \(esc(finding.message)) [\(finding.rule)]"))
            }
            for note in bundle.notes { rows.append(("Note", esc(note))) }
            out += "  \(esc(report.name(bundle.path)))\n" + ProbeText.table(rows, indent: "    ")
        }
        return out
    }

    /// Step 3: the hosts kept, then those filtered out with the reason.
    package static func talksTo(_ report: AppJSON) -> String {
        let inventory = report.inventory
        var out = "What the app talks to (\(inventory.hosts.count) host\(inventory.hosts.count == 1 ? "" : "s") to check, \(inventory.filtered.count) filtered)\n"
        let width = (inventory.hosts + inventory.filtered).map { esc($0.target).count }.max() ?? 0
        for host in inventory.hosts {
            out += "  \(esc(host.target).padded(to: width))  under \(esc(report.name(host.bundle))), found in \(sources(host))"
            out += host.isDictionaryGuess ? " (a dictionary key only, not in the binary)\n" : "\n"
        }
        if let line = dictionaryKeyHosts(inventory) { out += line + "\n" }
        if !inventory.filtered.isEmpty {
            out += "Filtered (--include HOST checks one anyway)\n"
            for host in inventory.filtered {
                out += "  \(esc(host.target).padded(to: width))  \(host.filtered?.label ?? ""), found in \(sources(host))\n"
            }
        }
        return out
    }

    /// The hosts to load that come only from dictionary keys (an NSExceptionDomains or
    /// NSPinnedDomains key in an Info.plist), not from the binary:
    /// said in the report and, before the run, on stderr (`atsprobe app`). nil when there are none.
    package static func dictionaryKeyHosts(_ inventory: AppInventory) -> String? {
        let keys = inventory.hosts.filter(\.isDictionaryGuess)
        guard !keys.isEmpty else { return nil }
        return "\(keys.count) host\(keys.count == 1 ? " comes" : "s come") only from Info.plist dictionary keys, not from the binary, "
            + "and \(keys.count == 1 ? "is" : "are") loaded on port 443 as a guess (--exclude HOST leaves one out): "
            + keys.map { esc($0.host) }.joined(separator: ", ")
    }

    package static func sources(_ host: FoundHost) -> String {
        host.sources.map(esc).joined(separator: ", ")
    }

    package static func failures(_ report: AppJSON) -> String {
        let failing = report.failing
        guard !failing.isEmpty else { return "Will fail: none, every load passes under the app's dictionaries\n" }
        var out = "Will fail (\(failing.count))\n"
        for item in failing {
            out += "  \(esc(item.host.target)) under \(esc(report.name(item.host.bundle)))'s dictionary: "
            out += (AppJSON.firstReason(item.check).map(esc) ?? "could not be reached") + "\n"
            out += "    fix: \(PlistCheckText.needs(item.check))\n"
        }
        for (result, finding) in report.neededFindings {
            out += "  \(esc(report.name(result.bundle.path))) needs \(PlistCheckText.line(finding))\n"
        }
        return out
    }

    /// The tightening findings and the exception entries no found host falls under.
    package static func unneeded(_ report: AppJSON) -> String {
        var out = "What no host needs\n"
        var any = false
        for result in report.results {
            let name = esc(report.name(result.bundle.path))
            for finding in (result.tightening?.findings ?? []) where finding.kind != .insufficient {
                any = true
                out += "  \(name): \(finding.kind.rawValue) \(PlistCheckText.line(finding))\n"
            }
            for entry in result.unusedEntries {
                any = true
                out += "  \(name): NSExceptionDomains entry \"\(esc(entry))\": no host found in the app falls under it (kept: a host built at run time may)\n"
            }
            for note in result.tightening?.notes ?? [] { out += "  \(name): note: \(esc(note.text))\n" }
            if result.checks.isEmpty && result.bundle.atsDictionary != nil {
                out += "  \(name): no host found under its dictionary; not compared\n"
            }
        }
        if !any { out += "  nothing: every dictionary is as tight as its hosts allow\n" }
        return out
    }

    package static func tightened(_ report: AppJSON) -> String {
        var out = ""
        for (result, plist) in report.tightenedDictionaries {
            let option = result.bundle.path.isEmpty ? "" : " --bundle \(esc(result.bundle.path))"
            out += "\nTightened NSAppTransportSecurity for \(esc(report.name(result.bundle.path))) (--format plist\(option) prints it alone):\n"
            out += AppJSON.escapedLines(plist)
        }
        return out
    }

    package static func serverFixes(_ report: AppJSON) -> String {
        var out = ""
        for (item, advice) in report.hostsWithServerAdvice {
            if out.isEmpty { out = "\nServer fixes (better than an exception, where the server is yours)\n" }
            out += "  \(esc(item.host.target))\n"
            if let reason = advice.impossibleReason { out += "    No exception makes it load: \(esc(reason))\n" }
            out += ExceptionPlist.adviceLines(advice).split(separator: "\n").map { "  " + $0 + "\n" }.joined()
        }
        return out
    }

    package static func esc(_ text: String) -> String { UntrustedText.escape(text) }
}

import ATSReport
import ATSAdvice
import ATSPolicy
import PropertyList
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport
import TLSFacts

/// The person-readable `plist check` report, from its document (ATSContract's PlistCheckJSON):
/// one block per target, the findings, then the tightened dictionary as an XML plist.
package enum PlistCheckText {
    package static func render(_ report: PlistCheckJSON, verbose: Bool, palette: Palette = Palette(enabled: false)) -> String {
        var out = "atsprobe plist check \(UntrustedText.escape(report.file, limit: 400)) (\(report.format)), rule set \(report.ruleSet)\n"
        if report.noDictionary { out += "No NSAppTransportSecurity dictionary: the ATS defaults apply.\n" }
        let checks = report.targets
        for check in checks {
            out += "\n" + target(check, verbose: verbose, palette: palette)
        }

        out += "\n"
        if report.findings.isEmpty {
            out += "Findings: none, the dictionary is no wider than the checked hosts need\n"
        } else {
            out += "Findings (\(report.findings.count))\n"
            let width = report.findings.map(\.kind.rawValue.count).max() ?? 0
            for finding in report.findings {
                out += "  \(finding.kind.rawValue.padded(to: width))  \(line(finding))\n"
            }
        }
        for note in report.notes { out += "  note: \(note)\n" }
        if !report.tight {
            out += "\nTightened NSAppTransportSecurity (the app's dictionary with the exceptions the hosts need):\n"
            out += report.tightenedPlist
        }
        let passing = checks.filter(\.passes).count
        out += "\nSummary: \(passing) of \(checks.count) load\(checks.count == 1 ? " passes" : "s pass") under the app's dictionary; "
        out += report.tight ? "nothing to tighten\n" : "\(report.findings.count) finding\(report.findings.count == 1 ? "" : "s")\n"
        return out
    }

    /// A tightening finding in one line: the key, the app's value, the value needed, why. `plist
    /// check`'s text and Xcode/SARIF messages, and `app`'s text, word a finding with this.
    package static func line(_ finding: TighteningFinding) -> String {
        "\(finding.keyPath): \(finding.appValue) -> \(finding.neededValue): \(finding.message)"
    }

    package static func target(_ check: PlistCheckJSON.TargetJSON, verbose: Bool, palette: Palette = Palette(enabled: false)) -> String {
        var rows: [(String, String)] = [("Governed by", check.policy.governedBy)]
        if let disagreement = check.policy.subdomainDisagreement {
            func entry(_ match: DomainMatch?) -> String {
                match.map { "entry \"\(UntrustedText.escape($0.key, limit: 255))\"" } ?? "no entry (the global keys)"
            }
            rows.append(("Readings", "NSIncludesSubdomains is read two ways for \(esc(disagreement.host)):"))
            rows.append(("  code", "Apple's code (any depth) applies \(entry(disagreement.anyDepth))"))
            rows.append(("  docs", "Apple's documentation (one label) applies \(entry(disagreement.oneLabel))"))
        }
        var out = "\(check.target.url)\n"
        for load in check.loads {
            let name = check.loads.count == 1 ? "Load" : (load.reading == .anyDepth ? "Load (code)" : "Load (docs)")
            var line = load.verdict.passed ? palette.pass("PASS") : palette.fail("FAIL")
            if check.loads.count > 1 { line += ", under \(load.reading.label): \(load.policy.governedBy)" }
            rows.append((name, line))
            for reason in load.verdict.reasons { rows.append(("  reason", esc(reason.message))) }
            if load.hops.count > 1 || verbose {
                for (hop, passed) in zip(load.hops, load.hopsPassed) {
                    rows.append(("  hop", "\(esc(hop.url)) \(passed ? palette.pass("PASS") : palette.fail("FAIL"))"))
                }
            }
        }
        if check.reachability != nil, let observation = check.server {
            rows.append(("Server", "\(observation.protocolVersion), \(observation.cipherSuite.ianaName)"))
        }
        rows.append(("Needs", needs(check)))
        if let sentence = KeyJudgement.certificateTransparencyKeySentence(check.certificateTransparencyKey ?? .absent,
                                                                          failsLoad: check.certificateTransparencyKeyFails) {
            rows.append(("CT key", sentence))
        }
        for note in check.policy.notes where note != check.policy.subdomainDisagreement?.message {
            rows.append(("Note", esc(note)))
        }
        out += ProbeText.table(rows, indent: "  ")
        return out
    }

    /// What the host needs in the app's dictionary (`need`, `PlistTargetCheck.suggestion`), or why
    /// nothing is known: `plist check`'s Needs and `app`'s fix in every format (one answer, one
    /// wording). An http:// load has no diagnostics: its own reasons say whether the host answered.
    package static func needs(_ check: PlistCheckJSON.TargetJSON) -> String {
        guard check.reachability != nil else {
            if check.loads.flatMap(\.verdict.reasons).contains(where: { $0.layer == .connection }) {
                return "unknown: the host could not be reached over http:// (nothing was measured)"
            }
            return "NSExceptionAllowsInsecureHTTPLoads (an http:// load; TLS not measured), or serve it over https"
        }
        if check.unreachable {
            let reason = check.unreachableReason ?? "no answer"
            return "unknown: the host could not be reached (\(esc(reason)))"
        }
        switch check.need {
        case .none?, nil:
            return "no exception (default ATS passes)" + (check.passes ? "" : "; the app's dictionary is what fails the load (see the governing entry)")
        case .exception(let domain, let exception, _)?:
            let keys = exception.propertyList.sorted(by: { $0.key < $1.key }).map { "\($0.key) = \($0.value.scalarText)" }
            return "the minimal NSExceptionDomains entry for \(esc(domain)): " + keys.joined(separator: ", ")
        case .impossible(let reason)?: return "no dictionary makes it load, only a server change can: \(esc(reason))"
        }
    }

    package static func esc(_ text: String) -> String { UntrustedText.escape(text) }
}

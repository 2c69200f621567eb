import ATSReport
import ATSEngine
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

/// The person-readable `plist check` report: one block per target, the findings, then the
/// tightened dictionary as an XML plist.
package enum PlistCheckText {
    package static func render(file: String, document: PropertyListDocument, ruleSet: RuleSet, checks: [PlistTargetCheck],
                       tightening: TighteningReport, tightenedPlist: String, verbose: Bool,
                       palette: Palette = Palette(enabled: false)) -> String {
        var out = "atsprobe plist check \(UntrustedText.escape(file, limit: 400)) (\(document.format.rawValue)), rule set \(ruleSet.id)\n"
        if document.atsDictionary == nil { out += "No NSAppTransportSecurity dictionary: the ATS defaults apply.\n" }
        for check in checks {
            out += "\n" + target(check, verbose: verbose, palette: palette)
        }

        out += "\n"
        if tightening.findings.isEmpty {
            out += "Findings: none, the dictionary is no wider than the checked hosts need\n"
        } else {
            out += "Findings (\(tightening.findings.count))\n"
            let width = tightening.findings.map(\.kind.rawValue.count).max() ?? 0
            for finding in tightening.findings {
                out += "  \(finding.kind.rawValue.padded(to: width))  \(finding.keyPath): "
                    + "\(finding.appValue) -> \(finding.neededValue): \(finding.message)\n"
            }
        }
        for note in tightening.notes { out += "  note: \(note.text)\n" }
        if !tightening.isTight {
            out += "\nTightened NSAppTransportSecurity (the app's dictionary with the exceptions the hosts need):\n"
            out += tightenedPlist
        }
        let passing = checks.filter(\.passes).count
        out += "\nSummary: \(passing) of \(checks.count) load\(checks.count == 1 ? " passes" : "s pass") under the app's dictionary; "
        out += tightening.isTight ? "nothing to tighten\n" : "\(tightening.findings.count) finding\(tightening.findings.count == 1 ? "" : "s")\n"
        return out
    }

    package static func target(_ check: PlistTargetCheck, verbose: Bool, palette: Palette = Palette(enabled: false)) -> String {
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
            var line = load.load.verdict.passed ? palette.pass("PASS") : palette.fail("FAIL")
            if check.loads.count > 1 { line += ", under \(load.reading.label): \(load.policy.governedBy)" }
            rows.append((name, line))
            for reason in load.load.verdict.reasons { rows.append(("  reason", esc(reason.message))) }
            if load.load.hops.count > 1 || verbose {
                for hop in load.load.hops {
                    rows.append(("  hop", "\(esc(hop.url)) \(hop.verdict.passed ? palette.pass("PASS") : palette.fail("FAIL"))"))
                }
            }
        }
        if let report = check.diagnostics {
            if let observation = report.bestObservation {
                rows.append(("Server", "\(observation.protocolVersion), \(observation.cipherSuite.ianaName)"))
            }
            rows.append(("Needs", needs(report, suggestion: check.suggestion ?? report.suggestion)))
        } else {
            rows.append(("Needs", "NSExceptionAllowsInsecureHTTPLoads (an http:// load; TLS not measured)"))
        }
        if let sentence = KeyJudgement.certificateTransparencyKeySentence(check.certificateTransparencyKey,
                                                                          failsLoad: check.certificateTransparencyKeyFails) {
            rows.append(("CT key", sentence))
        }
        for note in check.policy.notes where note != check.policy.subdomainDisagreement?.message {
            rows.append(("Note", esc(note)))
        }
        out += ProbeText.table(rows, indent: "  ")
        return out
    }

    package static func needs(_ report: DiagnosticsReport, suggestion: ExceptionSuggestion? = nil) -> String {
        if report.reachability == .unreachable {
            let reason = report.tests.test(.defaultConnection)?.verdict.reasons.first?.message ?? "no answer"
            return "unknown: the host could not be reached (\(esc(reason)))"
        }
        switch suggestion ?? report.suggestion {
        case .none: return "no exception (default ATS passes)"
        case .exception(let domain, let exception, _):
            let keys = exception.propertyList.sorted(by: { $0.key < $1.key }).map { "\($0.key) = \($0.value.scalarText)" }
            return "the minimal NSExceptionDomains entry for \(esc(domain)): " + keys.joined(separator: ", ")
        case .impossible(let reason): return "no dictionary makes it load: \(esc(reason))"
        }
    }

    package static func esc(_ text: String) -> String { UntrustedText.escape(text) }
}

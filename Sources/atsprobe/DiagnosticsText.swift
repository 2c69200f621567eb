import ATSDiagnostics
import ATSPolicy
import ATSProbe
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

/// nscurl's text, line for line, then what nscurl never says: why each test failed and what
/// the host needs.
enum DiagnosticsText {
    static let rule = String(repeating: "=", count: 80)

    static func render(_ report: DiagnosticsReport, verbose: Bool, palette: Palette = Palette(enabled: false)) -> String {
        var out = """
        Starting ATS Diagnostics

        Configuring ATS Info.plist keys and displaying the result of HTTPS loads to \(report.target.url).
        A test will "PASS" if URLSession:task:didCompleteWithError: returns a nil error.
        Use '--verbose' to view the ATS dictionaries used and to display the error received in URLSession:task:didCompleteWithError:.
        \(rule)


        """
        var section: String?
        for test in report.tests {
            if test.section != section {
                if section != nil { out += "\(rule)\n\n" }
                out += test.section + "\n"
                // nscurl puts a blank line under the per-host section titles only.
                if test.section.hasSuffix(" for \(report.target.host)") { out += "\n" }
                section = test.section
            }
            out += "---\n\(test.title)\n"
            if verbose {
                out += "ATS Dictionary:\n\(test.configuration.nsDictionaryDescription())\n"
            }
            out += "Result : \(test.verdict.passed ? palette.pass("PASS") : palette.fail("FAIL"))\n"
            if !test.verdict.passed {
                if verbose, let error = test.verdict.error { out += "Error : \(error.nscurlDescription)\n" }
                for reason in test.verdict.reasons { out += "Reason : \(UntrustedText.escape(reason.message))\n" }
            }
            out += "---\n\n"
        }
        out += "\(rule)\n\n"
        out += summary(report, verbose: verbose)
        return out
    }

    static func summary(_ report: DiagnosticsReport, verbose: Bool = false) -> String {
        var out = "atsprobe summary for \(report.target.url)\n"
        out += "Rule set   : \(report.ruleSet)\n"
        if verbose, let ruleSet = RuleSet.named(report.ruleSet) {
            out += offerLines(ruleSet)
        }
        out += "Handshakes : \(report.handshakes) for \(report.tests.count) tests, \(report.wallMilliseconds.fixed(0)) ms\n"
        if let observation = bestObservation(report) {
            var facts = "\(observation.protocolVersion), \(observation.cipherSuite.ianaName)"
            if let leaf = observation.leaf { facts += ", leaf \(leaf.publicKey), \(leaf.signatureHash.rawValue)" }
            out += "Server     : \(facts)\(report.widestProbe == nil ? "" : " (widest offer)")\n"
        }
        out += "Default    : \(report.defaultPasses ? "PASS" : "FAIL")\n"
        switch report.suggestion {
        case .none:
            out += "Exception  : none needed\n"
        case .exception(let domain, let exception, _):
            out += "Exception  : the minimal NSExceptionDomains entry for \(domain):\n"
            out += ExceptionPlist.snippet(domain: domain, exception: exception)
            out += ExceptionPlist.adviceLines(HostAdvice(report))
        case .impossible(let reason):
            out += "Exception  : no exception makes this host load, because \(UntrustedText.escape(reason))\n"
        }
        return out
    }

    /// The ClientHello the rule set models beyond protocols and suites, and what OpenSSL 3.0
    /// cannot send of it (docs/rules.md, "The offer").
    static func offerLines(_ ruleSet: RuleSet) -> String {
        let unsendable = ruleSet.groups.filter { !Prober.sendableGroups.contains($0) }
        var out = "Groups     : \(ruleSet.groups.filter { !unsendable.contains($0) }.map(\.name).joined(separator: ", "))\n"
        if !unsendable.isEmpty {
            out += "Not sent   : \(unsendable.map(\.name).joined(separator: ", ")) (OpenSSL 3.0 cannot offer it; "
                + "judged as if the server picked a classical group)\n"
        }
        out += "Signatures : \(ruleSet.signatureSchemes.map(\.name).joined(separator: ", "))\n"
        out += "ALPN       : \(ruleSet.alpn.joined(separator: ", ")); status_request and SCTs asked for\n"
        return out
    }

    /// The handshake with the most to say: the widest successful one.
    static func bestObservation(_ report: DiagnosticsReport) -> Observation? {
        let results = report.tests.flatMap(\.hops).compactMap(\.result) + (report.widestProbe.map { [$0] } ?? [])
        let observations = results.compactMap { try? $0.get() }
        return observations.max { $0.protocolVersion < $1.protocolVersion }
    }

    static func exitStatus(for report: DiagnosticsReport) -> ExitStatus {
        if report.defaultPasses { return .clear }
        return report.reachability == .unreachable ? .unreachable : .findings
    }
}

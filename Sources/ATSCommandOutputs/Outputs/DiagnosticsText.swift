import ATSReport
import ATSEngine
import ATSAdvice
import ATSPolicy
import ATSProbe
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport
import TLSFacts

/// nscurl's text, line for line, then what nscurl never says: why each test failed and what
/// the host needs.
package enum DiagnosticsText {
    package static let rule = String(repeating: "=", count: 80)

    package static func render(_ report: DiagnosticsReport, verbose: Bool, palette: Palette = Palette(enabled: false)) -> String {
        var out = header(report.target)
        var previous: TestOutcome?
        for (index, test) in report.tests.enumerated() {
            out += self.test(test, index: index, previous: previous, host: report.target.host, verbose: verbose, palette: palette)
            previous = test
        }
        return out + footer(report, verbose: verbose)
    }

    /// What nscurl prints before the first test: written at once when the run streams.
    package static func header(_ target: Target) -> String {
        """
        Starting ATS Diagnostics

        Configuring ATS Info.plist keys and displaying the result of HTTPS loads to \(target.url).
        A test will "PASS" if URLSession:task:didCompleteWithError: returns a nil error.
        Use '--verbose' to view the ATS dictionaries used and to display the error received in URLSession:task:didCompleteWithError:.
        \(rule)


        """
    }

    /// One test's block, with its section title when the section changes.
    package static func test(_ test: TestOutcome, index: Int, previous: TestOutcome?, host: String, verbose: Bool,
                     palette: Palette) -> String {
        var out = ""
        if test.section != previous?.section {
            if previous != nil { out += "\(rule)\n\n" }
            out += test.section + "\n"
            // nscurl puts a blank line under the per-host section titles only.
            if test.section.hasSuffix(" for \(host)") { out += "\n" }
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
        return out + "---\n\n"
    }

    /// After the last test: the rule and atsprobe's summary.
    package static func footer(_ report: DiagnosticsReport, verbose: Bool = false) -> String {
        "\(rule)\n\n" + summary(report, verbose: verbose)
    }

    package static func summary(_ report: DiagnosticsReport, verbose: Bool = false) -> String {
        var out = "atsprobe summary for \(report.target.url)\n"
        out += "Rule set   : \(report.ruleSet.id)\n"
        if verbose {
            out += offerLines(report.ruleSet)
        }
        out += "Handshakes : \(report.handshakes) for \(report.tests.count) tests, \(report.wallMilliseconds.fixed(0)) ms\n"
        if let observation = report.bestObservation {
            var facts = "\(observation.protocolVersion), \(observation.cipherSuite.ianaName)"
            if let leaf = observation.leaf { facts += ", leaf \(leaf.publicKey), \(leaf.signatureHash.rawValue)" }
            out += "Server     : \(facts)\(report.widestProbe == nil ? "" : " (widest offer)")\n"
            out += "Trust      : \(trustSummary(observation.trust))\n"
            if let warning = report.missingIntermediateWarning {
                out += "Warning    : \(warning)\n"
                out += "Server fix : \(TrustAdvice.missingIntermediateFix)\n"
            }
        }
        out += "Default    : \(report.defaultPasses ? "PASS" : "FAIL")\n"
        switch report.suggestion {
        case .none:
            out += "Exception  : none needed\n"
        case .exception(let domain, let exception, _):
            out += "Exception  : the minimal NSExceptionDomains entry for \(domain):\n"
            out += ExceptionPlist.snippet(domain: domain, exception: exception)
            out += ExceptionPlist.adviceLines(report.advice)
        case .impossible(let reason):
            out += "Exception  : no exception makes this host load, because \(UntrustedText.escape(reason))\n"
            out += ExceptionPlist.adviceLines(report.advice)
        }
        return out + DiagnosticsForecastText.lines(report)
    }

    /// The store judged against (with its version) and where the chain ended.
    package static func trustSummary(_ trust: TrustEvaluation) -> String {
        var text = trust.store.map { UntrustedText.escape($0) } ?? "no system store (--ca-file/--ca-dir roots only)"
        switch trust.anchor {
        case .user: text += "; chain ends at a user-installed root"
        case .app: text += "; chain ends at an anchor the app set"
        case .system: text += "; chain ends at " + (trust.anchorCertificate.map { "'\(UntrustedText.escape($0.subject, limit: 200))'" } ?? "a system root")
        case nil: text += "; chain NOT trusted"
        }
        if let other = trust.otherStore { text += "; \(UntrustedText.escape(other.detail))" }
        return text
    }

    /// The ClientHello the rule set models beyond protocols and suites, and what OpenSSL 3.0
    /// cannot send of it (docs/rules.md, "The offer").
    package static func offerLines(_ ruleSet: RuleSet) -> String {
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
}

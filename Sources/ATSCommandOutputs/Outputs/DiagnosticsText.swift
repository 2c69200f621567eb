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

/// nscurl's text, line for line, then what nscurl never says: why each test failed and what
/// the host needs. Rendered from the diagnostics document (`DiagnosticsJSON`, what `--format
/// json` writes), the summary's extra facts from its `live` part; the live run's streamed text
/// and the whole text are one `Stream`'s output.
package enum DiagnosticsText {
    package static let rule = String(repeating: "=", count: 80)

    /// The whole text of one target: its header, each test, its footer, through one `Stream`
    /// as a live run writes them.
    package static func render(_ document: DiagnosticsJSON, verbose: Bool, palette: Palette = Palette(enabled: false)) -> String {
        var stream = Stream(verbose: verbose, palette: palette)
        var out = stream.header(document.target)
        for test in document.tests { out += stream.test(test) }
        return out + stream.footer(document)
    }

    /// nscurl's text written piece by piece: the header when a target starts, each test as it
    /// finishes, the footer when the target is done. What the stream wrote for a target equals
    /// `render` of its document (DiagnosticsTextTests).
    package struct Stream: Sendable {
        package var verbose: Bool
        package var palette: Palette
        /// The target's host (the per-host section titles) and the test written before.
        private var host = ""
        private var previous: DiagnosticsJSON.TestJSON?

        package init(verbose: Bool, palette: Palette) {
            self.verbose = verbose
            self.palette = palette
        }

        /// What nscurl prints before the first test; the target's first test opens its first section.
        package mutating func header(_ target: TargetReport) -> String {
            host = target.host
            previous = nil
            return DiagnosticsText.header(url: target.url)
        }

        /// One test's block, with its section title when the section changes.
        package mutating func test(_ test: DiagnosticsJSON.TestJSON) -> String {
            defer { previous = test }
            return DiagnosticsText.test(test, previous: previous, host: host, verbose: verbose, palette: palette)
        }

        /// After the last test: the rule and atsprobe's summary.
        package func footer(_ document: DiagnosticsJSON) -> String {
            "\(rule)\n\n" + summary(document, verbose: verbose)
        }
    }

    /// The live run's text from its concurrent callbacks (a target's start, each test as it
    /// finishes, the target's end): one `Stream` behind an actor.
    package actor Live {
        private var stream: Stream

        package init(_ stream: Stream) { self.stream = stream }

        package func header(_ target: TargetReport) -> String { stream.header(target) }
        package func test(_ test: DiagnosticsJSON.TestJSON) -> String { stream.test(test) }
        package func footer(_ document: DiagnosticsJSON) -> String { stream.footer(document) }
    }

    private static func header(url: String) -> String {
        """
        Starting ATS Diagnostics

        Configuring ATS Info.plist keys and displaying the result of HTTPS loads to \(url).
        A test will "PASS" if URLSession:task:didCompleteWithError: returns a nil error.
        Use '--verbose' to view the ATS dictionaries used and to display the error received in URLSession:task:didCompleteWithError:.
        \(rule)


        """
    }

    private static func test(_ test: DiagnosticsJSON.TestJSON, previous: DiagnosticsJSON.TestJSON?, host: String, verbose: Bool,
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
            out += "ATS Dictionary:\n\(NSDictionaryDescription.render(test.dictionary))\n"
        }
        out += "Result : \(test.verdict.passed ? palette.pass("PASS") : palette.fail("FAIL"))\n"
        if !test.verdict.passed {
            if verbose, let error = test.verdict.error { out += "Error : \(error.nscurlDescription)\n" }
            for reason in test.verdict.reasons { out += "Reason : \(UntrustedText.escape(reason.message))\n" }
        }
        return out + "---\n\n"
    }

    /// atsprobe's summary: the rule set, the handshakes, the server and its trust (from the
    /// document's `live` facts), the default connection and what the host needs.
    package static func summary(_ document: DiagnosticsJSON, verbose: Bool = false) -> String {
        let live = document.live
        var out = "atsprobe summary for \(document.target.url)\n"
        out += "Rule set   : \(document.ruleSet)\n"
        if verbose, let live {
            out += offerLines(live.ruleSet, notSent: live.groupsNotSent)
        }
        out += "Handshakes : \(document.handshakes) for \(document.tests.count) tests, \((live?.wallMilliseconds ?? document.wallMilliseconds).fixed(0)) ms\n"
        if let live, let observation = live.server {
            var facts = "\(observation.protocolVersion), \(observation.cipherSuite.ianaName)"
            if let leaf = observation.leaf { facts += ", leaf \(leaf.publicKey), \(leaf.signatureHash.rawValue)" }
            out += "Server     : \(facts)\(live.widestOffer ? " (widest offer)" : "")\n"
            out += "Trust      : \(trustSummary(observation.trust))\n"
            if let missing = document.missingIntermediate {
                out += "Warning    : \(missing.warning)\n"
                out += "Server fix : \(missing.fix)\n"
            }
        }
        out += "Default    : \(document.defaultPasses ? "PASS" : "FAIL")\n"
        let suggestion = document.suggestion
        let evidence = suggestion.evidence ?? [], fixes = suggestion.fixes ?? []
        switch suggestion.suggestion {
        case .none:
            out += "Exception  : none needed\n"
        case .exception(let domain, let exception, _):
            out += "Exception  : the minimal NSExceptionDomains entry for \(domain):\n"
            out += ExceptionPlist.snippet(domain: domain, exception: exception)
            out += ExceptionPlist.adviceLines(evidence: evidence, fixes: fixes)
        case .impossible(let reason):
            out += "Exception  : no exception makes this host load, because \(UntrustedText.escape(reason))\n"
            out += ExceptionPlist.adviceLines(evidence: evidence, fixes: fixes)
        }
        return out + DiagnosticsForecastText.lines(document)
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
    /// cannot send of it (`notSent`; docs/rules.md, "The offer").
    package static func offerLines(_ ruleSet: RuleSet, notSent: [NamedGroup]) -> String {
        var out = "Groups     : \(ruleSet.groups.filter { !notSent.contains($0) }.map(\.name).joined(separator: ", "))\n"
        if !notSent.isEmpty {
            out += "Not sent   : \(notSent.map(\.name).joined(separator: ", ")) (OpenSSL 3.0 cannot offer it; "
                + "judged as if the server picked a classical group)\n"
        }
        out += "Signatures : \(ruleSet.signatureSchemes.map(\.name).joined(separator: ", "))\n"
        out += "ALPN       : \(ruleSet.alpn.joined(separator: ", ")); status_request and SCTs asked for\n"
        return out
    }
}

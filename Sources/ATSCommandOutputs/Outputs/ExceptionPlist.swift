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

/// The suggested exceptions as an Info.plist fragment: an NSAppTransportSecurity dictionary
/// with one NSExceptionDomains entry per host that needs one, written by PropertyListFile
/// (Foundation's PropertyListSerialization: keys sorted, XML escaped).
package enum ExceptionPlist {
    /// The entries the documents' suggestions need, merged (`SuggestedExceptions`).
    package static func suggested(_ documents: [DiagnosticsJSON], includeSubdomains: Bool) -> SuggestedExceptions {
        SuggestedExceptions(documents.map { SuggestedExceptions.Need(target: $0.target.url, host: $0.target.host, suggestion: $0.suggestion.suggestion) },
                            includeSubdomains: includeSubdomains)
    }

    /// An NSAppTransportSecurity dictionary as an XML property list (keys sorted, XML escaped).
    /// Shared by `diagnose --format plist` and `audit --format plist`.
    package static func render(_ configuration: ATSConfiguration) throws -> String {
        try ATSConfiguration.infoPlistXML(configuration.propertyList)
    }

    /// `<key>domain</key><dict>...</dict>`, indented, to paste inside NSExceptionDomains.
    package static func snippet(domain: String, exception: DomainException) -> String {
        ExceptionFragment.indented(domain: domain, .dictionary(exception.propertyList))
    }

    /// Text lines for the summary: the evidence per key, then the better fix on the server.
    package static func adviceLines(_ advice: HostAdvice) -> String {
        adviceLines(evidence: advice.evidence, fixes: advice.fixes)
    }

    package static func adviceLines(evidence: [KeyEvidence], fixes: [ServerFix]) -> String {
        var out = ""
        for item in evidence {
            out += "  \(item.key): \(UntrustedText.escape(item.observation))\n"
        }
        for fix in fixes {
            let what = fix.keys.isEmpty ? "Server fix" : "Better fix for \(fix.keys.joined(separator: " and "))"
            out += "  \(what): \(UntrustedText.escape(fix.change))\n"
            out += serverLines("nginx", fix.nginx)
            out += serverLines("Apache", fix.apache)
            if !fix.haproxy.isEmpty { out += serverLines("HAProxy", fix.haproxy) }
        }
        return out
    }

    /// One directive per line, each saying whether it replaces the directive of the same name in
    /// its block or is added beside it (ServerFix.action). The fixes of one host are merged per
    /// directive, so a later fix may have nothing left to set.
    package static func serverLines(_ server: String, _ lines: [String]) -> String {
        let label = "    " + server.padded(to: 7) + ": "
        guard !lines.isEmpty else { return label + "(its directives are set by the fix above)\n" }
        return lines.enumerated().map { index, line in
            (index == 0 ? label : String(repeating: " ", count: label.count)) + ServerFix.action(of: line).rawValue.padded(to: 7) + " " + line + "\n"
        }.joined()
    }
}

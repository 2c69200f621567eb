import ATSPolicy
import TextSupport
import TLSFacts

/// `plist explain`'s text: one block per URL, every untrusted string escaped.
package enum PlistExplainText {
    package static func render(file: String, ruleSet: RuleSet, explanations: [PolicyExplanation]) -> String {
        var out = "\(UntrustedText.escape(file, limit: 300)) (rule set \(ruleSet.id))\n"
        for item in explanations {
            out += "\n\(UntrustedText.escape(item.url, limit: 300))\n"
            out += line("entry", entry(item.entry))
            if item.readingsDiffer {
                out += line("entry (one label)", entry(item.entryOneLabelReading) + " (Apple's documentation reads NSIncludesSubdomains as one label)")
            }
            out += line("direct", item.direct ? "yes" : "no")
            out += line("TLS required", "\(item.tlsRequired ? "yes" : "no"): \(item.reasonText)")
            if item.scheme == .http {
                out += line("http://", item.tlsRequired ? "blocked (NSURLErrorAppTransportSecureConnectionFailed, -1022)" : "loaded in cleartext")
            }
            let source = switch item.minimumTLSVersionSource {
            case "entry": "the entry's NSExceptionMinimumTLSVersion"
            case "platform": "the platform's default; ATS sets none"
            default: "ATS's minimum"
            }
            out += line("minimum TLS", "\(item.minimumTLSVersion) (\(source); highest \(item.maximumTLSVersion))")
            let suites = switch item.cipherSuites {
            case "ats": "ATS's forward-secret group"
            case "ats+tls_rsa": "ATS's forward-secret group and the TLS_RSA group (NSExceptionRequiresForwardSecrecy = NO)"
            default: "the platform's list (not restricted)"
            }
            out += line("forward secrecy", "\(item.forwardSecrecyRequired ? "required" : "not required"): \(suites)")
            out += line("CT", KeyJudgement.certificateTransparencySentence(item.certificateTransparency))
            out += line("pins", pins(item.pins))
            for note in item.notes { out += line("note", UntrustedText.escape(note, limit: 500)) }
        }
        return out
    }

    private static func line(_ label: String, _ value: String) -> String {
        "  " + (label + ":").padded(to: 19) + value + "\n"
    }

    private static func entry(_ entry: PolicyExplanation.Entry?) -> String {
        guard let entry else { return "none" }
        let key = "\"\(UntrustedText.escape(entry.key, limit: 200))\""
        let source = entry.builtIn ? "Apple's built-in exception \(key)" : "NSExceptionDomains \(key)"
        switch entry.match {
        case "subdomain": return "\(source), NSIncludesSubdomains, \(entry.depth ?? 0) label\(entry.depth == 1 ? "" : "s") below"
        case "addressRange": return "\(source), address range /\(entry.prefixLength ?? 0)"
        default: return "\(source), exact"
        }
    }

    private static func pins(_ pins: PolicyExplanation.Pins?) -> String {
        guard let pins else { return "none" }
        func count(_ identities: [String]?, _ what: String) -> String? {
            identities.map { "\($0.count) \(what) identit\($0.count == 1 ? "y" : "ies")" }
        }
        let parts = [count(pins.caIdentities, "CA"), count(pins.leafIdentities, "leaf")].compactMap { $0 }
        guard !parts.isEmpty else { return "NSPinnedDomains \"\(pins.keys.map { UntrustedText.escape($0, limit: 200) }.joined(separator: "\", \""))\": no identity key, so it pins nothing" }
        let verdict = pins.canMatch ? "a chain can match" : "can never match: every load fails pinning"
        return "NSPinnedDomains \"\(pins.keys.map { UntrustedText.escape($0, limit: 200) }.joined(separator: "\", \""))\": \(parts.joined(separator: ", ")); \(verdict)"
    }
}

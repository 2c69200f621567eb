import ATSReport
import ATSPolicy
import PropertyList
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport
import TLSFacts

/// The person-readable `pins` output: each served certificate's pin, the ready dictionary,
/// and the --plist judgement. Network text is escaped.
package enum PinsText {
    package static func render(_ report: PinsReport) throws -> String {
        var out = "atsprobe pins \(report.target.url)\n"
        if let failure = report.failure {
            return out + "Handshake failed: \(ProbeText.describe(failure))\n"
        }
        if let trust = report.trust {
            out += "Trust: \(ProbeText.trustLine(trust)) as of \(ProbeText.iso(trust.evaluatedAt))\n"
            out += "Trust store: \(ProbeText.storeName(trust))\n"
            out += ProbeText.problemLines(trust)
        }
        out += "\nServed chain, SPKI-SHA256-BASE64 (base64 of SHA-256 of the DER SubjectPublicKeyInfo):\n"
        for certificate in report.certificates {
            out += "  [\(certificate.index)] \(certificate.role.padded(to: 4)) "
            out += "\(certificate.spkiSHA256Base64)  \(esc(certificate.subject))\n"
        }
        out += pinningLine(report)
        out += try report.plistText() ?? ""
        if report.plistChecked {
            out += "\nPins in --plist that apply to \(esc(report.target.host)):\n"
            if report.pinChecks.isEmpty {
                out += "  none: no NSPinnedDomains entry applies, so pinning does not restrict this host\n"
            }
            for check in report.pinChecks {
                let verdict = switch check.result.verdict {
                case .matched: "satisfied"
                case .noPins: "satisfied (the entry pins nothing)"
                case .mismatched: "NOT satisfied"
                }
                out += "  - \(esc(check.domain)) (\(check.readings.joined(separator: ", "))): \(verdict): \(check.result.reason)\n"
            }
            out += "Result: \(report.pinsSatisfied == false ? "pins NOT satisfied" : "pins satisfied")\n"
        }
        return out
    }

    package static func esc(_ text: String) -> String { UntrustedText.escape(text) }

    /// What the suggested dictionary pins, as it is (PinningPolicy.suggestedPinnedDomains): the
    /// served CA certificates (distinct keys) and the leaf, or the leaf alone when the server
    /// sent no CA certificate.
    package static func pinningLine(_ report: PinsReport) -> String {
        guard report.certificates.first != nil else { return "" }
        let cas = Set(report.certificates.filter { $0.role == "CA" }.map(\.spkiSHA256Base64)).count
        guard cas > 0 else {
            return "\nNSPinnedDomains, pinning the leaf only: the server sent no CA certificate, so no CA pin can be\n"
                + "read from it (pin a CA by adding its SPKI-SHA256-BASE64 under NSPinnedCAIdentities):\n"
        }
        let what = cas == 1 ? "the served CA certificate" : "the \(cas) served CA certificates"
        return "\nNSPinnedDomains, pinning \(what) and the leaf (both must then match;\n"
            + "drop NSPinnedLeafIdentities to pin only the CAs, or NSPinnedCAIdentities to pin only the leaf):\n"
    }
}

extension PinsReport {
    /// The suggested dictionary inside NSAppTransportSecurity, as an XML plist; nil without a handshake.
    package func plistText() throws -> String? {
        guard let suggestion = suggestedPinnedDomains?.dictionaryValue else { return nil }
        let data = try PropertyListFile.write([ATSKey.appTransportSecurity.name: .dictionary(suggestion)], format: .xml)
        return String(decoding: data, as: UTF8.self)
    }
}

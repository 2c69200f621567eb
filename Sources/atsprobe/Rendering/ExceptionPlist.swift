import ATSEngine
import ATSAdvice
import ATSPolicy
import ATSReport
import PropertyList
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

/// The suggested exceptions as an Info.plist fragment: an NSAppTransportSecurity dictionary
/// with one NSExceptionDomains entry per host that needs one, written by PropertyListFile
/// (Foundation's PropertyListSerialization: keys sorted, XML escaped).
enum ExceptionPlist {
    static func suggested(_ reports: [DiagnosticsReport], includeSubdomains: Bool) -> SuggestedExceptions {
        SuggestedExceptions(reports.map(\.advice), includeSubdomains: includeSubdomains)
    }

    /// An NSAppTransportSecurity dictionary as an XML property list (keys sorted, XML escaped).
    /// Shared by `diagnose --format plist` and `audit --format plist`.
    static func render(_ configuration: ATSConfiguration) throws -> String {
        let root: [String: PropertyListValue] = [ATSKey.appTransportSecurity.name: .dictionary(configuration.propertyList)]
        return String(decoding: try PropertyListFile.write(root, format: .xml), as: UTF8.self)
    }

    /// One comment line on stderr for each target no entry helps, so a script sees why it is missing.
    static func reportUnhelpable(_ suggested: SuggestedExceptions) {
        for item in suggested.unhelpable {
            let text = "# \(item.host): no exception added for \(item.target): \(item.reason)"
            FileStream.standardError.write(UntrustedText.escape(text) + "\n")
        }
    }

    /// `--format plist` and `--merge`: the dictionary, or the app's property list with it merged in.
    static func write(_ reports: [DiagnosticsReport], options: MergeOptions, document: PropertyListDocument?,
                      ruleSet: RuleSet, output: OutputOptions<DiagnosticsFormats>) throws {
        let suggested = suggested(reports, includeSubdomains: options.includeSubdomains)
        reportUnhelpable(suggested)
        guard let document else {
            var sink = OutputSink(path: output.output)
            sink.write(try render(suggested.configuration))
            try sink.finish()
            return
        }
        let merged: InfoPlistMerge
        do {
            merged = try InfoPlistMerge(document, adding: suggested.domains, ruleSet: ruleSet)
        } catch {
            throw InputError("'\(UntrustedText.escape(document.path ?? "", limit: 400))': \(error.description)")
        }
        for note in merged.notes { Diagnostics.warn(UntrustedText.escape(note)) }
        let data: Data
        do {
            data = try PropertyListFile.write(merged.root, format: options.mergeFormat?.format ?? document.format)
        } catch {
            throw InputError(error.description)
        }
        // Written only now, after everything succeeded, and atomically: --output may name the input.
        if let path = output.output {
            try FileStream.writeAtomically(data, to: path)
        } else {
            FileStream.standardOutput.write(data)
        }
    }

    /// `<key>domain</key><dict>...</dict>`, indented, to paste inside NSExceptionDomains.
    static func snippet(domain: String, exception: DomainException) -> String {
        ExceptionFragment.indented(domain: domain, .dictionary(exception.propertyList))
    }

    /// Text lines for the summary: the evidence per key, then the better fix on the server.
    static func adviceLines(_ advice: HostAdvice) -> String {
        var out = ""
        for item in advice.evidence {
            out += "  \(item.key): \(UntrustedText.escape(item.observation))\n"
        }
        for fix in advice.fixes {
            let what = fix.keys.isEmpty ? "Server fix" : "Better fix for \(fix.keys.joined(separator: " and "))"
            out += "  \(what): \(UntrustedText.escape(fix.change))\n"
            out += "    nginx  : \(fix.nginx.joined(separator: " "))\n"
            out += "    Apache : \(fix.apache.joined(separator: " | "))\n"
            if !fix.haproxy.isEmpty { out += "    HAProxy: \(fix.haproxy.joined(separator: " | "))\n" }
        }
        return out
    }
}

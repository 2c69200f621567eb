import ATSEngine
import ATSAdvice
import ATSPolicy
import PropertyList
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

extension HostAdvice {
    /// The advice for one diagnostics run, with evidence from every handshake it made.
    init(_ report: DiagnosticsReport) {
        let observations = report.tests.flatMap(\.hops).compactMap(\.result) + (report.widestProbe.map { [$0] } ?? [])
        // The default connection's reasons, then Allow All Loads': what fails whatever the dictionary.
        let failures = report.tests.prefix(2).flatMap(\.verdict.reasons)
        self.init(target: report.target.url, host: report.target.host, suggestion: report.suggestion,
                  observations: observations, ruleSet: RuleSet.named(report.ruleSet) ?? .default, failures: failures)
    }
}

/// The suggested exceptions as an Info.plist fragment: an NSAppTransportSecurity dictionary
/// with one NSExceptionDomains entry per host that needs one, written by PropertyListFile
/// (Foundation's PropertyListSerialization: keys sorted, XML escaped).
enum ExceptionPlist {
    static func suggested(_ reports: [DiagnosticsReport], includeSubdomains: Bool) -> SuggestedExceptions {
        SuggestedExceptions(reports.map(HostAdvice.init), includeSubdomains: includeSubdomains)
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
        guard var document else {
            var sink = OutputSink(path: output.output)
            sink.write(try render(suggested.configuration))
            try sink.finish()
            return
        }
        // `--merge X --output X`: another run may be merging into X too. Take turns (an advisory
        // lock on X), and merge into X as it is now, not as it was read before the probes: each
        // run's entries survive the other's (a plain last-rename-wins lost one).
        var lock: FileLock?
        defer { lock?.release() }
        if let merge = options.merge, let path = output.output, FileLock.sameFile(merge, path) {
            lock = try FileLock.acquire(path)
            document = try options.mergeDocument() ?? document
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
        guard let data = try? PropertyListFile.write([domain: .dictionary(exception.propertyList)], format: .xml) else { return "" }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        // Drop the XML header, <plist>, and the outer <dict> lines; keep the entry.
        guard let open = lines.firstIndex(of: "<dict>"), let close = lines.lastIndex(of: "</dict>"), open < close else { return "" }
        return lines[(open + 1)..<close].map { "    " + $0.replacing("\t", with: "    ").dropFirst(4) + "\n" }.joined()
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

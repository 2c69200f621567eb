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
import TextSupport
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
        let format = options.mergeFormat?.format ?? document.format
        var data: Data
        do {
            data = try PropertyListFile.write(merged.root, format: format)
        } catch {
            throw InputError(error.description)
        }
        // An XML file written back as XML is edited in place, so the diff shows only what was
        // added (PlistTextMerge); the bytes are read again, and anything unexpected (a file
        // changed meanwhile, a pipe) keeps the whole list written above.
        if format == .xml, document.format == .xml, let path = options.merge, BoundedFile.isRegularFile(path),
           let bytes = try? BoundedFile.read(path, limit: PropertyListFile.defaultMaximumSize),
           (try? PropertyListFile.parse(Data(bytes), path: path))?.root == document.root,
           let edited = PlistTextMerge.apply(original: bytes, from: document.root, to: merged.root) {
            data = edited
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
            out += serverLines("nginx", fix.nginx)
            out += serverLines("Apache", fix.apache)
            if !fix.haproxy.isEmpty { out += serverLines("HAProxy", fix.haproxy) }
        }
        return out
    }

    /// One directive per line, each saying whether it replaces the directive of the same name in
    /// its block or is added beside it (ServerFix.action). The fixes of one host are merged per
    /// directive, so a later fix may have nothing left to set.
    static func serverLines(_ server: String, _ lines: [String]) -> String {
        let label = "    " + server.padded(to: 7) + ": "
        guard !lines.isEmpty else { return label + "(its directives are set by the fix above)\n" }
        return lines.enumerated().map { index, line in
            (index == 0 ? label : String(repeating: " ", count: label.count)) + ServerFix.action(of: line).rawValue.padded(to: 7) + " " + line + "\n"
        }.joined()
    }
}

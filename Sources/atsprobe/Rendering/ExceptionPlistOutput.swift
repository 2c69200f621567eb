import ATSEngine
import ATSAdvice
import ATSFiles
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

/// Where the suggested exceptions go (ATSReport's `ExceptionPlist` writes them): standard
/// output or --output, or merged into the app's property list (--merge), under its lock.
extension ExceptionPlist {
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
}

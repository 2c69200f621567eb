import ATSReport
import ATSEngine
import ATSAdvice
import ATSFiles
import ATSPolicy
import PropertyList
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport
import TLSFacts

/// Where the suggested exceptions go: standard output or --output, or merged into the app's
/// property list (--merge), under its lock.
extension ExceptionPlist {
    /// One comment line (for standard error) for each target no entry helps, so a script sees why it is missing.
    package static func unhelpableLines(_ suggested: SuggestedExceptions) -> String {
        suggested.unhelpable.map { item in
            UntrustedText.escape("# \(item.host): no exception added for \(item.target): \(item.reason)") + "\n"
        }.joined()
    }

    /// `--format plist` and `--merge`: the dictionary, or the app's property list (`document`,
    /// read from `mergePath`) with it merged in, written to `outputPath` (atomically) or standard
    /// output. `mergeFormat` nil keeps the document's encoding; `warn` hears the merge's notes.
    /// Bad input (an unreadable or unwritable file, a dictionary that cannot be merged) is an InputError.
    package static func write(_ suggested: SuggestedExceptions, document: PropertyListDocument?, mergePath: String?,
                              mergeFormat: PropertyListFile.Format?, outputPath: String?, ruleSet: RuleSet,
                              warn: (String) -> Void) throws {
        guard var document else {
            let text = try render(suggested.configuration)
            if let outputPath {
                try FileStream.writeAtomically(text.utf8, to: outputPath)
            } else {
                FileStream.standardOutput.write(text)
            }
            return
        }
        // `--merge X --output X`: another run may be merging into X too. Take turns (an advisory
        // lock on X), and merge into X as it is now, not as it was read before the probes: each
        // run's entries survive the other's (a plain last-rename-wins lost one).
        var lock: FileLock?
        defer { lock?.release() }
        if let merge = mergePath, let path = outputPath, FileLock.sameFile(merge, path) {
            lock = try FileLock.acquire(path)
            do {
                document = try PropertyListFile.read(path: merge)
            } catch {
                throw InputError(InputError.Code(error), error.description)
            }
        }
        let merged: InfoPlistMerge
        do {
            merged = try InfoPlistMerge(document, adding: suggested.domains, ruleSet: ruleSet)
        } catch {
            throw InputError(.badContents, "'\(UntrustedText.escape(document.path ?? "", limit: 400))': \(error.description)")
        }
        for note in merged.notes { warn(UntrustedText.escape(note)) }
        let format = mergeFormat ?? document.format
        var data: Data
        do {
            data = try PropertyListFile.write(merged.root, format: format)
        } catch {
            throw InputError(InputError.Code(error), error.description)
        }
        // An XML file written back as XML is edited in place, so the diff shows only what was
        // added (PlistTextMerge); the bytes are read again, and anything unexpected (a file
        // changed meanwhile, a pipe) keeps the whole list written above.
        if format == .xml, document.format == .xml, let path = mergePath, BoundedFile.isRegularFile(path),
           let bytes = try? BoundedFile.read(path, limit: PropertyListFile.defaultMaximumSize),
           (try? PropertyListFile.parse(Data(bytes), path: path))?.root == document.root,
           let edited = PlistTextMerge.apply(original: bytes, from: document.root, to: merged.root) {
            data = edited
        }
        // Written only now, after everything succeeded, and atomically: --output may name the input.
        if let path = outputPath {
            try FileStream.writeAtomically(data, to: path)
        } else {
            FileStream.standardOutput.write(data)
        }
    }

    /// `{NSAppTransportSecurity: dictionary}` as an XML property list (the tightened dictionary of
    /// `plist check` and `app`); a dictionary that cannot be written is bad input (64).
    package static func tightened(_ dictionary: [String: PropertyListValue]) throws(InputError) -> String {
        do throws(PropertyListError) {
            return try PlistTargetCheck.tightenedPlist(dictionary)
        } catch {
            throw InputError(InputError.Code(error), error.description)
        }
    }
}

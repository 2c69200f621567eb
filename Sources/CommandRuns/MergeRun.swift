import ATSCommandOutputs
import ATSFiles
import ATSPolicy
import ATSReport
import PropertyList
import TextSupport

/// `diagnose --merge`: the app's property list read (before any connection, and again under the
/// output's lock), and DiagnosticsOutput's plist (the documents' entries merged into it,
/// `ExceptionPlist.merged`) handed to the command's output.
package enum MergeRun {
    /// The Info.plist to merge into; a file that cannot be read is one line naming it (exit 64).
    package static func read(_ path: String) throws(InputError) -> PropertyListDocument {
        do {
            return try PropertyListFile.read(path: path)
        } catch {
            throw InputError(InputError.Code(error), error.description)
        }
    }

    /// `documents`' entries merged into `read` (the file at `path`), in `format` or the file's,
    /// given to `output`, which writes --output (atomically) or standard output.
    /// `--merge X --output X`: another run may be merging into X too. Take turns (an advisory lock
    /// on X, held until `output` returns), and merge into X as it is now, not as it was read before
    /// the probes: each run's entries survive the other's (a plain last-rename-wins lost one).
    package static func write(_ documents: [DiagnosticsJSON], into read: PropertyListDocument, path: String, format: PropertyListFile.Format?,
                              outputPath: String?, includeSubdomains: Bool, ruleSet: RuleSet,
                              output: (DiagnosticsOutput) throws -> Void) throws {
        var document = read
        var lock: FileLock?
        defer { lock?.release() }
        if let outputPath, FileLock.sameFile(path, outputPath) {
            lock = try FileLock.acquire(outputPath)
            document = try MergeRun.read(path)
        }
        // The file's bytes as they are now: an XML file written back as XML is edited in place.
        var bytes: [UInt8]?
        if document.format == .xml, BoundedFile.isRegularFile(path) {
            bytes = try? BoundedFile.read(path, limit: PropertyListFile.defaultMaximumSize)
        }
        let merge = PlistMergeInput(document: document, bytes: bytes, format: format, ruleSet: ruleSet)
        try output(DiagnosticsOutput(documents, includeSubdomains: includeSubdomains, merge: merge))
    }
}

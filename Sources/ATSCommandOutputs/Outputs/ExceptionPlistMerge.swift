import ATSReport
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

/// `--merge`: the app's property list as the command read it, for `diagnose --format plist` to
/// merge the suggested entries into (`ExceptionPlist.merged`). The command reads it, under the
/// output's lock when the output replaces it, and writes what the registry renders.
package struct PlistMergeInput: Sendable {
    /// The app's property list.
    package var document: PropertyListDocument
    /// The file's bytes read again just before the merge (nil when it is no regular file): an XML
    /// file written back as XML is edited in place when they still read as `document`.
    package var bytes: [UInt8]?
    /// --merge-format; nil keeps the document's encoding.
    package var format: PropertyListFile.Format?
    /// The run's rule set (the merge's notes judge entries by it).
    package var ruleSet: RuleSet

    package init(document: PropertyListDocument, bytes: [UInt8]?, format: PropertyListFile.Format?, ruleSet: RuleSet) {
        self.document = document
        self.bytes = bytes
        self.format = format
        self.ruleSet = ruleSet
    }
}

/// The suggested exceptions merged into the app's property list, and the comment lines for
/// targets no entry helps.
extension ExceptionPlist {
    /// One comment line (for standard error) for each target no entry helps, so a script sees why it is missing.
    package static func unhelpableLines(_ suggested: SuggestedExceptions) -> String {
        suggested.unhelpable.map { item in
            UntrustedText.escape("# \(item.host): no exception added for \(item.target): \(item.reason)") + "\n"
        }.joined()
    }

    /// `--merge`: the app's property list with the suggested entries merged in, in `merge.format`
    /// or the document's; the unhelpable targets and the merge's notes on standard error. A
    /// dictionary that cannot be merged or written is bad input (an InputError, after the
    /// unhelpable targets: `RenderingFailed`).
    package static func merged(_ suggested: SuggestedExceptions, into merge: PlistMergeInput) throws(RenderingFailed) -> Rendered {
        let unhelpable = unhelpableLines(suggested)
        let document = merge.document
        let merged: InfoPlistMerge
        do {
            merged = try InfoPlistMerge(document, adding: suggested.domains, ruleSet: merge.ruleSet)
        } catch {
            throw RenderingFailed(standardError: unhelpable,
                                  error: InputError(.badContents, "'\(UntrustedText.escape(document.path ?? "", limit: 400))': \(error.description)"))
        }
        let notes = merged.notes.map { Rendered.warning(UntrustedText.escape($0)) }.joined()
        let format = merge.format ?? document.format
        var data: Data
        do {
            data = try PropertyListFile.write(merged.root, format: format)
        } catch {
            throw RenderingFailed(standardError: unhelpable + notes, error: InputError(InputError.Code(error), error.description))
        }
        // An XML file written back as XML is edited in place, so the diff shows only what was
        // added (PlistTextMerge); anything unexpected (a file changed since it was read, a pipe)
        // keeps the whole list written above.
        if format == .xml, document.format == .xml, let bytes = merge.bytes,
           (try? PropertyListFile.parse(Data(bytes), path: document.path ?? ""))?.root == document.root,
           let edited = PlistTextMerge.apply(original: bytes, from: document.root, to: merged.root) {
            data = edited
        }
        return Rendered(bytes: Array(data), standardError: unhelpable + notes)
    }

    /// `{NSAppTransportSecurity: dictionary}` as an XML property list (the tightened dictionary of
    /// `plist check` and `app`); a dictionary that cannot be written is bad input (64).
    package static func tightened(_ dictionary: [String: PropertyListValue]) throws(InputError) -> String {
        do throws(PropertyListError) {
            return try ATSConfiguration.infoPlistXML(dictionary)
        } catch {
            throw InputError(InputError.Code(error), error.description)
        }
    }
}

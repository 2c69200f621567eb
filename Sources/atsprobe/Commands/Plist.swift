import ATSFiles
import ArgumentParser
import ATSAdvice
import ATSPolicy
import PropertyList
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

extension ATSProbeCommand {
    /// `atsprobe plist lint|check`: audit an app's Info.plist (issue #7).
    struct Plist: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "plist",
            abstract: "Audit an app's Info.plist: lint its ATS dictionary, or check it against the hosts it loads.",
            subcommands: [PlistLint.self, PlistCheck.self, PlistExplain.self]
        )
    }
}

/// Reading the files `plist` commands take; every problem is one line naming the file (exit 64).
enum PlistInput {
    static func document(_ path: String) throws -> PropertyListDocument {
        try read(path).document
    }

    /// The document and the bytes it was parsed from (read once: the file may be a pipe), for
    /// the formats that locate findings in the file (`PlistLocations`).
    static func read(_ path: String) throws -> (document: PropertyListDocument, bytes: Data) {
        do {
            let bytes = try PropertyListFile.readBounded(path: path, maximumSize: PropertyListFile.defaultMaximumSize)
            return (try PropertyListFile.parse(bytes, path: path), bytes)
        } catch {
            throw InputError(error.description)
        }
    }

}

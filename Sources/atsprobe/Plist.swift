import ArgumentParser
import ATSPolicy
import Foundation
import TLSFacts

extension ATSProbeCommand {
    /// `atsprobe plist lint|check`: audit an app's Info.plist (issue #7).
    struct Plist: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "plist",
            abstract: "Audit an app's Info.plist: lint its ATS dictionary, or check it against the hosts it loads.",
            subcommands: [PlistLint.self, PlistCheck.self]
        )
    }
}

/// Reading the files `plist` commands take; every problem is one line naming the file (exit 64).
enum PlistInput {
    static func document(_ path: String) throws -> PropertyListDocument {
        do {
            return try PropertyListFile.read(path: path)
        } catch {
            throw InputError(error.description)
        }
    }

    /// Targets from an --input file: one per line; blank lines and lines starting with # skipped.
    static func targets(fromFile path: String) throws -> [String] {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw InputError("cannot read --input '\(UntrustedText.escape(path, limit: 400))': \(error.localizedDescription)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw InputError("--input '\(UntrustedText.escape(path, limit: 400))' is not UTF-8 text")
        }
        return text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }
}

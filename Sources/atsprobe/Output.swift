#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where results go: stdout, or the --output file. Diagnostics and progress go to stderr.
struct OutputSink {
    private var path: String?
    private var buffer = ""

    init(path: String?) { self.path = path }

    mutating func write(_ text: String) {
        if path == nil {
            FileStream.standardOutput.write(text)
        } else {
            buffer += text
        }
    }

    mutating func writeLine(_ text: String = "") { write(text + "\n") }

    /// Writes the --output file, when there is one. Throws an InputError naming the file.
    func finish() throws {
        guard let path else { return }
        try FileStream.writeAtomically(buffer.utf8, to: path)
    }
}

enum Diagnostics {
    static func warn(_ message: String) {
        FileStream.standardError.write("atsprobe: \(message)\n")
    }
}

extension JSONEncoder {
    /// The stable JSON contract: sorted keys, ISO 8601 dates, no escaped slashes.
    static func atsprobe(pretty: Bool = true) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}

/// The version of every JSON document atsprobe writes; bumped on any incompatible change.
/// 2: every document and record carries `run` (tool, OpenSSL, rule set, trust store, CT list,
/// start) and `finishedAt`; server fixes carry `haproxy` and appear for "impossible" too; probe
/// documents carry `appleRules`, `certificateTransparency` and `failed`.
let jsonSchemaVersion = 2

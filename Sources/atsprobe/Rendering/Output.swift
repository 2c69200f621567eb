#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

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

/// JSONEncoder escapes C0 controls but writes C1 controls, DEL, bidi overrides and line
/// separators raw: valid JSON, yet a `jq -r` or a terminal shows them live. This encoder writes
/// them as \uXXXX, the same value in every JSON reader (UntrustedText's list, one rule for
/// every output channel). The markup is ASCII, so such scalars only ever sit inside strings.
final class EscapingJSONEncoder: JSONEncoder, @unchecked Sendable {
    override func encode<T: Encodable>(_ value: T) throws -> Data {
        let data = try super.encode(value)
        // Only scalars from U+007F up are rewritten below, and every one of them has a byte at
        // or above 0x7F in UTF-8: output that is all below is returned as it is, without
        // decoding it scalar by scalar (that scan cost 3-5 M instructions per audited target).
        let rewritable = data.withUnsafeBytes { bytes in bytes.contains { $0 >= 0x7F } }
        guard rewritable else { return data }
        let text = String(decoding: data, as: UTF8.self)
        guard text.unicodeScalars.contains(where: UntrustedText.isInvisibleOrControl) else { return data }
        var out = ""
        out.reserveCapacity(data.count + 64)
        for scalar in text.unicodeScalars {
            if scalar.value >= 0x7F, UntrustedText.isInvisibleOrControl(scalar) {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return Data(out.utf8)
    }
}

extension JSONEncoder {
    /// The stable JSON contract: sorted keys, ISO 8601 dates, no escaped slashes, no raw
    /// invisible or control characters (EscapingJSONEncoder).
    static func atsprobe(pretty: Bool = true) -> JSONEncoder {
        let encoder = EscapingJSONEncoder()
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

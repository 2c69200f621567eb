#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

/// Records for a report: from a file atsprobe wrote (audit's JSON Lines, or diagnose's JSON
/// document or array), or from a live run's documents, decoded the same way.
enum ReportInput {
    /// 1 GiB: about 30,000 audited targets at 36 KB each.
    static let fileLimit = 1 << 30

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()

    /// A live diagnose run's documents, through the JSON they are written as.
    static func report(documents: [DiagnosticsJSON]) throws -> Report {
        let encoder = JSONEncoder.atsprobe(pretty: false)
        return Report(try documents.map { try decoder.decode(ReportRecord.self, from: encoder.encode($0)) })
    }

    /// Reads `path` ("-" is standard input). Bad input is an InputError naming the file and line.
    static func read(_ path: String) throws -> [ReportRecord] {
        let bytes = try FileStream.readAll(path, limit: fileLimit)
        let name = "'\(UntrustedText.escape(path, limit: 400))'"
        let first = bytes.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        guard let first else { throw InputError("\(name) is empty: no records to report") }
        // diagnose --format json: one pretty-printed document, or an array of them.
        if first == UInt8(ascii: "[") {
            do { return try decoder.decode([ReportRecord].self, from: Data(bytes)) } catch {
                throw InputError("\(name) is not an array of atsprobe diagnostics documents: \(describe(error))")
            }
        }
        if let single = try? decoder.decode(ReportRecord.self, from: Data(bytes)) { return [single] }
        // JSON Lines (audit --format json, audit --records).
        var records: [ReportRecord] = []
        for (index, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            guard line.contains(where: { ![0x20, 0x09, 0x0D].contains($0) }) else { continue }
            do {
                records.append(try decoder.decode(ReportRecord.self, from: Data(line)))
            } catch {
                throw InputError("\(name) line \(index + 1): not an atsprobe record: \(describe(error))")
            }
        }
        return records
    }

    /// A decoding error in a few words, naming the field.
    static func describe(_ error: Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, let context)?:
            return "missing '\(path(context.codingPath + [key]))'"
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?:
            return "'\(path(context.codingPath))' has the wrong type"
        case .dataCorrupted(let context)?:
            return context.codingPath.isEmpty ? "not JSON" : "'\(path(context.codingPath))': \(context.debugDescription)"
        default:
            return "not JSON"
        }
    }

    private static func path(_ keys: [CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport
import TLSFacts

/// Bad report input, in one line naming the file and the line (the executable exits 64).
public struct ReportInputError: Error, Sendable {
    /// What is wrong, for code: callers compare this, never `message`'s text.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// A file without records.
        case empty
        /// Not atsprobe's records: a line or document that does not decode, a key given twice.
        case notRecords
        /// One target held by two shards, or twice in one run.
        case duplicateTarget
    }

    public let code: Code
    /// For people: one line naming the file and the line.
    public let message: String
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}

/// Records read back from what atsprobe wrote: audit's JSON Lines, or diagnose's JSON document
/// or array of documents; and several such files (audit's shards) merged into one report.
public enum ReportReader {
    /// One file's records, in the file's order. `name` is how errors name the file (already
    /// escaped). An empty file is bad input unless `allowEmpty` (a shard may hold no target).
    public static func records(from bytes: [UInt8], name: String, allowEmpty: Bool = false) throws(ReportInputError) -> [AuditRecord] {
        try numberedRecords(from: bytes, name: name, allowEmpty: allowEmpty).map(\.record)
    }

    /// As `records`, each with the file's line it was read from (nil for a diagnose document,
    /// which is not JSON Lines): how a target held twice is named (`RunRecords`).
    public static func numberedRecords(from bytes: [UInt8], name: String, allowEmpty: Bool = false) throws(ReportInputError) -> [(line: Int?, record: AuditRecord)] {
        let decoder = JSONDecoder.atsprobe()
        let first = bytes.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        guard let first else {
            if allowEmpty { return [] }
            throw ReportInputError(.empty, "\(name) is empty: no records to report")
        }
        // diagnose --format json: one pretty-printed document, or an array of them.
        if first == UInt8(ascii: "[") {
            let documents: [AuditRecord]
            do { documents = try decoder.decode([AuditRecord].self, from: Data(bytes)) } catch {
                try refuseDuplicateKeys(bytes[...], name: name, firstLine: 1)
                throw ReportInputError(.notRecords, "\(name) is not an array of atsprobe diagnostics documents: \(describe(error))")
            }
            try refuseDuplicateKeys(bytes[...], name: name, firstLine: 1)
            return documents.map { (nil, $0.withoutHandshakes) }
        }
        if let single = try? decoder.decode(AuditRecord.self, from: Data(bytes)) {
            try refuseDuplicateKeys(bytes[...], name: name, firstLine: 1)
            // One JSON Lines record (a line of its own) is line 1; a pretty-printed document has no line.
            let body = bytes.reversed().drop { [0x20, 0x09, 0x0A, 0x0D].contains($0) }
            return [(body.contains(0x0A) ? nil : 1, single.withoutHandshakes)]
        }
        // JSON Lines (audit --format json, audit --records).
        var records: [(line: Int?, record: AuditRecord)] = []
        for (index, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            guard line.contains(where: { ![0x20, 0x09, 0x0D].contains($0) }) else { continue }
            records.append((index + 1, try record(line: line, decoder: decoder, name: name, number: index + 1).withoutHandshakes))
        }
        return records
    }

    /// One JSON Lines record, the `number`th line of the file `name`: decoded (numbers checked,
    /// verdict agreeing with its tests) and refused when an object holds a key twice. What every
    /// reader of records calls, the whole-file one and `report --diff`'s streaming one alike.
    public static func record(line: ArraySlice<UInt8>, decoder: JSONDecoder, name: String, number: Int) throws(ReportInputError) -> AuditRecord {
        let record: AuditRecord
        do { record = try decoder.decode(AuditRecord.self, from: Data(line)) } catch {
            // A key held twice is said first: which value the decoder read decided its error.
            try refuseDuplicateKeys(line, name: name, firstLine: number)
            throw ReportInputError(.notRecords, "\(name) line \(number): not an atsprobe record: \(describe(error))")
        }
        try refuseDuplicateKeys(line, name: name, firstLine: number)
        return record
    }

    /// Refuses `bytes` (starting at line `firstLine` of `name`) when some object holds a key twice,
    /// naming the line of the second one.
    static func refuseDuplicateKeys(_ bytes: ArraySlice<UInt8>, name: String, firstLine: Int) throws(ReportInputError) {
        guard let (key, offset) = JSONDuplicateKeys.first(in: bytes) else { return }
        let line = firstLine + bytes.prefix(offset).reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        throw ReportInputError(.notRecords, "\(name) line \(line): not an atsprobe record: the key '\(UntrustedText.escape(key, limit: 100))' appears twice in one object "
                               + "(JSON readers disagree on which value counts)")
    }

    /// Several files' records as one run's (audit's shards, docs/audit.md): in input order, and
    /// refused when two files hold the same target, which would count it twice. A target is the
    /// input line it came from (its number and text: the shards read the same input), or for a
    /// diagnose document, which names no line, its URL.
    public static func merge(_ files: [(name: String, records: [AuditRecord])]) throws(ReportInputError) -> [AuditRecord] {
        var holder: [String: String] = [:]
        var merged: [AuditRecord] = []
        for file in files {
            var inThisFile: Set<String> = []
            for record in file.records {
                let key = identity(record)
                if let other = holder[key], !inThisFile.contains(key) {
                    throw ReportInputError(.duplicateTarget, "\(other) and \(file.name) both hold \(describeTarget(record)): "
                                           + "a target belongs to one shard; merge each shard's results once")
                }
                holder[key] = file.name
                inThisFile.insert(key)
                merged.append(record)
            }
        }
        return merged.sorted(by: AuditRecord.inputOrder)
    }

    private static func identity(_ record: AuditRecord) -> String {
        guard let entry = record.entry else { return "url " + record.name }
        return "line \(entry.line.map(String.init) ?? "argument") " + entry.input
    }

    private static func describeTarget(_ record: AuditRecord) -> String {
        let name = "'\(UntrustedText.escape(record.name, limit: 300))'"
        guard let entry = record.entry else { return name }
        return name + (entry.line.map { " (input line \($0))" } ?? " (an argument)")
    }

    /// A decoding error in a few words, naming the field.
    public static func describe(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, let context)?:
            return "missing '\(path(context.codingPath + [key]))'"
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?:
            return "'\(path(context.codingPath))' has the wrong type"
        case .dataCorrupted(let context)?:
            // JSONDecoder names no field when a number does not fit its type (1e300 as an Int): it
            // reports the whole line as invalid JSON.
            return context.codingPath.isEmpty ? "not JSON, or a number out of range" : "'\(path(context.codingPath))': \(UntrustedText.escape(context.debugDescription, limit: 200))"
        default:
            return "not JSON"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        UntrustedText.escape(keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: "."), limit: 200)
    }
}

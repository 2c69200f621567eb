#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One target as the JSON contract holds it (docs/json-schema.md, docs/audit.md): a JSON Lines
/// record of `audit --format json`, or a `diagnose --format json` document read back. Written
/// by the live run and decoded by `atsprobe report` as this same type, and every report format
/// renders from it, so a report of the file equals the report of the run.
///
/// Reading is strict where the live run is exact: a record needs a `schemaVersion` this atsprobe
/// reads (`readableSchemaVersions`), a known `kind` and that kind's fields; numbers are
/// converted with checks (`CheckedNumber`). Unknown fields are ignored (additions within a
/// version are allowed).
public enum AuditRecord: Codable, Sendable {
    /// A diagnostics run; `entry` is nil for a `diagnose --format json` document, which names no input line.
    case result(DiagnosticsJSON, verdict: AuditVerdict, entry: Entry?)
    case timeout(TargetReport, deadlineSeconds: Double, entry: Entry, run: RunInfo?, finishedAt: Date?)
    case error(message: String, entry: Entry, run: RunInfo?, finishedAt: Date?)

    /// The input a record came from: the line's text and its 1-based number (nil for an argument).
    public struct Entry: Sendable, Hashable {
        public var input: String
        public var line: Int?

        public init(input: String, line: Int?) {
            self.input = input
            self.line = line
        }
    }

    private enum Key: String, CodingKey {
        case schemaVersion, kind, verdict, input, line, target, deadlineSeconds, message, run, finishedAt
    }

    /// A timeout record, its end in whole seconds as the JSON carries it.
    public static func timedOut(_ target: TargetReport, deadlineSeconds: Double, entry: Entry, run: RunInfo, finishedAt: Date) -> AuditRecord {
        .timeout(target, deadlineSeconds: deadlineSeconds, entry: entry, run: run, finishedAt: wholeSeconds(finishedAt))
    }

    /// An error record, its end in whole seconds as the JSON carries it.
    public static func failed(_ message: String, entry: Entry, run: RunInfo, finishedAt: Date) -> AuditRecord {
        .error(message: message, entry: entry, run: run, finishedAt: wholeSeconds(finishedAt))
    }

    static func wholeSeconds(_ date: Date) -> Date { Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)) }

    public func encode(to encoder: any Encoder) throws {
        // The diagnostics document writes its own keys first; ours join the same object.
        if case .result(let document, _, _) = self { try document.encode(to: encoder) }
        var container = encoder.container(keyedBy: Key.self)
        switch self {
        case .result(_, let verdict, let entry):
            guard let entry else { return }  // a diagnose document as it was written
            try container.encode("result", forKey: .kind)
            try container.encode(verdict, forKey: .verdict)
            try encode(entry, into: &container)
        case .timeout(let target, let deadline, let entry, let run, let finishedAt):
            try container.encode(jsonSchemaVersion, forKey: .schemaVersion)
            try container.encodeIfPresent(run, forKey: .run)
            try container.encodeIfPresent(finishedAt, forKey: .finishedAt)
            try container.encode("timeout", forKey: .kind)
            try container.encode(AuditVerdict.timeout, forKey: .verdict)
            try container.encode(target, forKey: .target)
            try container.encode(deadline, forKey: .deadlineSeconds)
            try encode(entry, into: &container)
        case .error(let message, let entry, let run, let finishedAt):
            try container.encode(jsonSchemaVersion, forKey: .schemaVersion)
            try container.encodeIfPresent(run, forKey: .run)
            try container.encodeIfPresent(finishedAt, forKey: .finishedAt)
            try container.encode("error", forKey: .kind)
            try container.encode(AuditVerdict.error, forKey: .verdict)
            try container.encode(message, forKey: .message)
            try encode(entry, into: &container)
        }
    }

    private func encode(_ entry: Entry, into container: inout KeyedEncodingContainer<Key>) throws {
        try container.encode(entry.input, forKey: .input)
        try container.encode(entry.line, forKey: .line)  // null for an argument, as always written
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        guard c.contains(.schemaVersion) else {
            throw DecodingError.keyNotFound(Key.schemaVersion, .init(codingPath: [], debugDescription: "not an atsprobe record"))
        }
        let version = try c.decode(Int.self, forKey: .schemaVersion)
        guard readableSchemaVersions.contains(version) else {
            throw DecodingError.dataCorruptedError(
                forKey: .schemaVersion, in: c,
                debugDescription: "version \(version) is not one this atsprobe reads (\(readableSchemaVersions.lowerBound) to \(readableSchemaVersions.upperBound))")
        }
        switch try c.decodeIfPresent(String.self, forKey: .kind) {
        case nil:
            // A diagnostics document (diagnose --format json) has no kind and no verdict: it is a result.
            let document = try DiagnosticsJSON(from: decoder)
            self = .result(document, verdict: document.verdict, entry: nil)
        case "result":
            let verdict = try c.decode(AuditVerdict.self, forKey: .verdict)
            guard ![.timeout, .error].contains(verdict) else {
                throw DecodingError.dataCorruptedError(forKey: .verdict, in: c, debugDescription: "not a result's verdict")
            }
            let document = try DiagnosticsJSON(from: decoder)
            // The stored verdict must be the one the live run derives from the same tests and
            // advice (`DiagnosticsJSON.verdict`): a record saying "pass" whose default connection
            // fails is refused, never believed (docs/reports.md, "Records that contradict themselves").
            guard verdict == document.verdict else {
                throw DecodingError.dataCorruptedError(
                    forKey: .verdict, in: c,
                    debugDescription: "'\(verdict.rawValue)' disagrees with the record's own tests and advice, which give '\(document.verdict.rawValue)'")
            }
            self = .result(document, verdict: verdict, entry: try Self.entry(c))
        case "timeout":
            self = .timeout(try c.decode(TargetReport.self, forKey: .target),
                            deadlineSeconds: try CheckedNumber.deadline(c, .deadlineSeconds), entry: try Self.entry(c),
                            run: try c.decodeIfPresent(RunInfo.self, forKey: .run),
                            finishedAt: try c.decodeIfPresent(Date.self, forKey: .finishedAt))
        case "error":
            self = .error(message: try c.decode(String.self, forKey: .message), entry: try Self.entry(c),
                          run: try c.decodeIfPresent(RunInfo.self, forKey: .run),
                          finishedAt: try c.decodeIfPresent(Date.self, forKey: .finishedAt))
        default:
            throw DecodingError.dataCorruptedError(forKey: .kind, in: c, debugDescription: "unknown record kind")
        }
    }

    private static func entry(_ c: KeyedDecodingContainer<Key>) throws -> Entry {
        let line = try c.decodeIfPresent(Int.self, forKey: .line)
        if let line, line < 1 {
            throw DecodingError.dataCorruptedError(forKey: .line, in: c, debugDescription: "out of range (input lines count from 1)")
        }
        return Entry(input: try c.decode(String.self, forKey: .input), line: line)
    }

}

extension AuditRecord {
    /// What a record stands for when runs are compared (`audit --baseline`, `report --diff`)
    /// and when a run is refused for holding one twice: a target, by its URL, or an input line
    /// that never became one, by its text. The two never match: a bad line whose text is a URL
    /// is not that target (issue 40: it stood for it in a baseline, and a regression read CHANGED).
    public enum Identity: Hashable, Sendable {
        case target(url: String)
        case badLine(text: String)
    }

    public var identity: Identity {
        if let url = target?.url { return .target(url: url) }
        return .badLine(text: input ?? "")
    }

    /// A `diagnose` document as a record (it names no input line), its verdict as the audit gives it.
    public static func document(_ document: DiagnosticsJSON) -> AuditRecord {
        .result(document, verdict: document.verdict, entry: nil)
    }
}

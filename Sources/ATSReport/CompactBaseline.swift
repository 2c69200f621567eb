import ATSFiles
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport

/// A compact baseline (`report --baseline-of RUN`): only what a comparison reads, as JSON Lines
/// (docs/json-schema.md, "Compact baseline"). The first line is the run,
/// `{"kind":"baseline-run","run":{...},"schemaVersion":2}`; then one line per target,
/// `{"input","keys","kind":"baseline","line","name","reason","schemaVersion":2,"tests":[{"passed","title"}],"verdict"}`:
/// a few hundred bytes where a record holds tens of KB (at most `targetLimit` with the
/// reason cut to `reasonLimit`). `report --diff` and `audit --baseline` read it wherever they
/// read a baseline (`RunRecords.sides`), and give the same comparison as from the full records.
package enum CompactBaseline {
    package static let schemaVersion = 2
    static let targetKind = "baseline"
    static let headerKind = "baseline-run"
    /// The reason is kept for the "reason now" line only: cut to this many characters.
    package static let reasonLimit = 400

    enum Line {
        case header(RunInfo?)
        case target(BaselineComparison.Side)
    }

    private struct Header: Codable {
        var schemaVersion: Int
        var kind: String
        var run: RunInfo?
    }

    private struct Target: Codable {
        var schemaVersion: Int
        var kind: String
        var side: BaselineComparison.Side

        private enum Keys: String, CodingKey { case schemaVersion, kind }

        init(side: BaselineComparison.Side) {
            schemaVersion = CompactBaseline.schemaVersion
            kind = CompactBaseline.targetKind
            self.side = side
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Keys.self)
            schemaVersion = try c.decode(Int.self, forKey: .schemaVersion)
            kind = try c.decode(String.self, forKey: .kind)
            side = try BaselineComparison.Side(from: decoder)
        }

        func encode(to encoder: any Encoder) throws {
            try side.encode(to: encoder)
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(schemaVersion, forKey: .schemaVersion)
            try c.encode(kind, forKey: .kind)
        }
    }

    /// The line's kind when it is a compact baseline's (`"kind":"baseline` appears as JSON only
    /// as a key and its value: inside a string the quotes are escaped). A full record is tens of
    /// KB and never such a line; only short lines are searched.
    static func kind(of line: ArraySlice<UInt8>) -> String? {
        guard line.count < 64 * 1024 else { return nil }
        let header = Array(#""kind":"baseline-run""#.utf8), target = Array(#""kind":"baseline""#.utf8)
        if contains(line, header) { return headerKind }
        if contains(line, target) { return targetKind }
        return nil
    }

    private static func contains(_ line: ArraySlice<UInt8>, _ needle: [UInt8]) -> Bool {
        guard line.count >= needle.count else { return false }
        var index = line.startIndex
        while index <= line.endIndex - needle.count {
            if line[index] == needle[0], line[index..<index + needle.count].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }

    static func decode(_ line: ArraySlice<UInt8>, kind: String, decoder: JSONDecoder) throws -> Line {
        if kind == headerKind {
            let header = try decoder.decode(Header.self, from: Data(line))
            guard header.kind == headerKind, header.schemaVersion == schemaVersion else { throw InputError(.badContents, "not a baseline header") }
            return .header(header.run)
        }
        let target = try decoder.decode(Target.self, from: Data(line))
        guard target.kind == targetKind, target.schemaVersion == schemaVersion else { throw InputError(.badContents, "not a baseline line") }
        return .target(target.side)
    }

    /// The compact baseline of `sides` under `run`, as JSON Lines.
    package static func render(_ sides: [BaselineComparison.Side], run: RunInfo?) -> String {
        let encoder = JSONEncoder.atsprobe(pretty: false)
        var out = ""
        let header = Header(schemaVersion: schemaVersion, kind: headerKind, run: run)
        if let data = try? encoder.encode(header) { out += String(decoding: data, as: UTF8.self) + "\n" }
        for var side in sides {
            if let reason = side.reason, reason.count > reasonLimit { side.reason = String(reason.prefix(reasonLimit)) }
            if let data = try? encoder.encode(Target(side: side)) { out += String(decoding: data, as: UTF8.self) + "\n" }
        }
        return out
    }

    /// `--accept TARGET` on a baseline: `baseline` with each accepted target's side taken from
    /// `run` (or removed when `run` does not hold it), in the baseline's order, new ones last.
    /// Throws when a TARGET names nothing on either side.
    package static func accepting(_ targets: [String], baseline: [BaselineComparison.Side], run: [BaselineComparison.Side]) throws -> [BaselineComparison.Side] {
        for target in targets where !baseline.contains(where: { $0.named(target) }) && !run.contains(where: { $0.named(target) }) {
            throw InputError(.badArgument, "--accept '\(UntrustedText.escape(target, limit: 300))': neither the baseline nor the run holds it (give its URL or its input line)")
        }
        var out: [BaselineComparison.Side] = []
        var taken: Set<AuditRecord.Identity> = []
        for side in baseline {
            guard targets.contains(where: side.named) else { out.append(side); continue }
            if let now = run.first(where: { $0.identity == side.identity }) { out.append(now); taken.insert(now.identity) }
        }
        for side in run where targets.contains(where: side.named) && !taken.contains(side.identity) && !baseline.contains(where: { $0.identity == side.identity }) {
            out.append(side)
        }
        return out
    }
}

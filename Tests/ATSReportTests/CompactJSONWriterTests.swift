@testable import ATSReport
import Foundation
import Testing

/// `JSONEncoder.atsprobe(pretty: false)` writes through CompactJSONWriter; these compare its bytes
/// with JSONEncoder's own for the same value (the same class, made to take JSONEncoder's path by a
/// userInfo entry, so the escaping of invisible characters is applied to both alike).
@Suite struct CompactJSONWriterTests {
    static func reference() -> JSONEncoder {
        let encoder = JSONEncoder.atsprobe(pretty: false)
        encoder.userInfo[CodingUserInfoKey(rawValue: "reference")!] = true
        return encoder
    }

    static func expectSameBytes<T: Encodable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let fast = try JSONEncoder.atsprobe(pretty: false).encode(value)
        let slow = try reference().encode(value)
        #expect(String(decoding: fast, as: UTF8.self) == String(decoding: slow, as: UTF8.self), sourceLocation: sourceLocation)
    }

    /// Records written by `atsprobe audit --json` (main at edd5c26) against loopback `openssl
    /// s_server`s: a passing host, a TLS 1.0-only host (an exception), an expired leaf reached by
    /// name with a quote in its path, an http:// target, a refused port, a server that never
    /// answers (unreachable, then a timeout record) and a bad input line (an error record); read
    /// back and written again by both encoders.
    @Test func realRecordsAreWrittenAsJSONEncoderWritesThem() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Records/audit.jsonl")
        let records = try ReportReader.records(from: Array(try Data(contentsOf: path)), name: "audit.jsonl")
        #expect(records.count >= 6)
        for record in records {
            try Self.expectSameBytes(record)
            try Self.expectSameBytes(record.withoutHandshakes)
        }
    }

    /// Tests that share a handshake carry equal hops, and CompactJSONWriter writes each equal one
    /// after the first from the node it made (CompactMemo.hops). A hop whose connect time is -0.0
    /// equals one whose time is 0.0 but is written "-0": it is not taken for the other.
    @Test func equalHopsAreWrittenAgainAndASignedZeroIsNotTakenForZero() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Records/audit.jsonl")
        // Decoded line by line: ReportReader leaves the handshakes out of what it reads.
        let records = try String(decoding: try Data(contentsOf: path), as: UTF8.self).split(separator: "\n")
            .map { try JSONDecoder.atsprobe().decode(AuditRecord.self, from: Data($0.utf8)) }
        let hops = records.compactMap { record -> [DiagnosticsJSON.HopJSON]? in
            guard case .result(let document, _, _) = record else { return nil }
            return document.tests.flatMap(\.hops)
        }.flatMap { $0 }
        let hop = try #require(hops.first { $0.observation != nil })
        var observation = try #require(hop.observation)
        observation.connectMilliseconds = 0
        let zero = DiagnosticsJSON.HopJSON(url: hop.url, offer: hop.offer, result: .success(observation), http: hop.http)
        observation.connectMilliseconds = -0.0
        let negativeZero = DiagnosticsJSON.HopJSON(url: hop.url, offer: hop.offer, result: .success(observation), http: hop.http)
        #expect(zero == negativeZero)
        try Self.expectSameBytes([zero, zero, negativeZero, zero] + hops + hops)
        let text = String(decoding: try JSONEncoder.atsprobe(pretty: false).encode([zero, zero, negativeZero, zero]), as: UTF8.self)
        #expect(text.components(separatedBy: "\"connectMilliseconds\":-0,").count == 2)
        #expect(text.components(separatedBy: "\"connectMilliseconds\":0,").count == 4)
    }

    /// `depth` arrays around `inner`: how deep a subtree written ahead (CompactNode.written)
    /// may sit before JSONWriter's limit of 512 refuses it.
    struct Nested<Inner: Encodable>: Encodable {
        var depth: Int
        var inner: Inner
        func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            if depth > 1 { try container.encode(Nested(depth: depth - 1, inner: inner)) } else { try container.encode(inner) }
        }
    }

    /// A chain, an evaluation and a hop are written once per document and copied where they
    /// come again (CompactMemo, CompactNode.written); near JSONWriter's nesting limit the copy is
    /// refused exactly where JSONEncoder refuses the value, and written as it writes it below.
    @Test func aSubtreeWrittenAheadMeetsTheNestingLimitWhereJSONEncoderDoes() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Records/audit.jsonl")
        let records = try String(decoding: try Data(contentsOf: path), as: UTF8.self).split(separator: "\n")
            .map { try JSONDecoder.atsprobe().decode(AuditRecord.self, from: Data($0.utf8)) }
        let hop = try #require(records.compactMap { record -> DiagnosticsJSON.HopJSON? in
            guard case .result(let document, _, _) = record else { return nil }
            return document.tests.flatMap(\.hops).first { $0.observation != nil }
        }.first)
        let observation = try #require(hop.observation)
        var refused = 0
        for depth in 500...512 {
            for value in [Nested(depth: depth, inner: [hop, hop]) as any Encodable, Nested(depth: depth, inner: [observation.chain, observation.chain]),
                          Nested(depth: depth, inner: [observation.trust, observation.trust])] {
                let fast = try? JSONEncoder.atsprobe(pretty: false).encode(value)
                let slow = try? Self.reference().encode(value)
                #expect((fast == nil) == (slow == nil), "depth \(depth): refused by one encoder only")
                if let fast, let slow { #expect(fast == slow, "depth \(depth)") } else { refused += 1 }
            }
        }
        #expect(refused > 0 && refused < 39, "the limit falls inside the range tried")
    }

    struct Everything: Encodable {
        var text: String
        var texts: [String]
        var number: Double
        var float: Float
        var integer: Int
        var small: Int8
        var unsigned: UInt64
        var flag: Bool
        var missing: String?
        var present: Int?
        var date: Date
        var data: Data
        var map: [String: Int]
        var nested: [[Double]]
        var empty: [Int]
        var nothing: Nothing
        var twice: Twice
    }

    /// Encodes nothing at all: JSONEncoder writes `{}`.
    struct Nothing: Encodable {
        func encode(to encoder: any Encoder) throws {}
    }

    /// A key written twice (the last value stays), one nested container asked for twice under
    /// one key (the same container), an unkeyed container inside, and a superEncoder.
    struct Twice: Encodable {
        enum Key: String, CodingKey { case a, b, nested, list, `super` }
        enum Inner: String, CodingKey { case x, y }
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(1, forKey: .a)
            try c.encode("again", forKey: .a)
            var first = c.nestedContainer(keyedBy: Inner.self, forKey: .nested)
            try first.encode(1, forKey: .x)
            var second = c.nestedContainer(keyedBy: Inner.self, forKey: .nested)
            try second.encode(2, forKey: .y)
            var list = c.nestedUnkeyedContainer(forKey: .list)
            try list.encode(true)
            try list.encodeNil()
            var inner = list.nestedContainer(keyedBy: Inner.self)
            try inner.encode(0.5, forKey: .x)
            try Nothing().encode(to: c.superEncoder())
            var again = encoder.container(keyedBy: Key.self)
            try again.encode([1, 2], forKey: .b)
        }
    }

    /// Strings of characters that need care (quotes, backslashes, every C0 control, DEL, C1,
    /// bidi overrides, line separators, slashes, non-ASCII, astral) and numbers at the edges.
    @Test func generatedValuesAreWrittenAsJSONEncoderWritesThem() throws {
        var alphabet: [Unicode.Scalar] = (0..<0x20).compactMap(Unicode.Scalar.init)
        alphabet += ["\"", "\\", "/", "a", "Z", "0", " ", "\u{7F}", "\u{85}", "\u{9B}", "\u{A0}", "é", "\u{301}",
                     "\u{200B}", "\u{202E}", "\u{2028}", "\u{2029}", "\u{FEFF}", "😀", "中"]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Int(state % UInt64(bound))
        }
        func text() -> String {
            var s = String.UnicodeScalarView()
            for _ in 0..<next(24) { s.append(alphabet[next(alphabet.count)]) }
            return String(s)
        }
        let doubles: [Double] = [0, -0.0, 1, -1, 0.1, 1.5, 1e300, -2.5e-300, 5e-324, .greatestFiniteMagnitude,
                                 123_456_789.125, 1e15, 1e16, 9_007_199_254_740_993, 100, 0.3]
        for round in 0..<400 {
            let keys = (0..<next(6)).map { _ in text() }
            let value = Everything(
                text: text(), texts: (0..<next(4)).map { _ in text() },
                number: [doubles[round % doubles.count] * Double(next(1000))].first(where: \.isFinite) ?? doubles[round % doubles.count],
                float: Float(doubles[round % doubles.count] / 7).isFinite ? Float(doubles[round % doubles.count] / 7) : 1,
                integer: [Int.min, Int.max, 0, -1, next(1_000_000)][round % 5], small: Int8.min,
                unsigned: round % 2 == 0 ? UInt64.max : UInt64(next(100)), flag: round % 2 == 0,
                missing: round % 3 == 0 ? nil : text(), present: round % 4 == 0 ? nil : next(10),
                date: Date(timeIntervalSince1970: Double(next(4_000_000_000)) + 0.25),
                data: Data(text().utf8), map: Dictionary(keys.map { ($0, next(10)) }, uniquingKeysWith: { a, _ in a }),
                nested: [[doubles[round % doubles.count]], []], empty: [], nothing: Nothing(), twice: Twice())
            try Self.expectSameBytes(value)
        }
    }

    @Test func aNumberJSONCannotHoldIsRefusedByBoth() {
        #expect(throws: EncodingError.self) { try JSONEncoder.atsprobe(pretty: false).encode([Double.nan]) }
        #expect(throws: EncodingError.self) { try Self.reference().encode([Double.nan]) }
        #expect(throws: EncodingError.self) { try JSONEncoder.atsprobe(pretty: false).encode(["k": Double.infinity]) }
    }

    /// Strings whose escapes fall at every place of an eight-byte run and across runs (the writer
    /// skips eight bytes at a time that need no escape): the same bytes as JSONEncoder's.
    @Test func escapesAtEveryPlaceOfAnEightByteRun() throws {
        let specials = ["\"", "\\", "\n", "\u{0}", "\u{1F}", "\t", "é", "\u{7F}", "/", "\u{202E}"]
        var strings: [String] = []
        for length in 0...19 {
            for position in 0..<max(1, length) {
                for special in specials {
                    var characters = Array(repeating: "a", count: length)
                    if length > 0 { characters[position] = special }
                    strings.append(characters.joined())
                }
            }
        }
        try Self.expectSameBytes(strings)
    }

    /// The scan that decides whether a record needs its invisible characters rewritten sees a
    /// byte from 0x7F up at every place, in the eight-byte runs and in the tail.
    @Test func everyByteFrom7FIsSeenWherever() {
        for length in 1...19 {
            for position in 0..<length {
                for byte in [UInt8(0x00), 0x41, 0x7E, 0x7F, 0x80, 0xC2, 0xE2, 0xFF] {
                    var bytes = [UInt8](repeating: 0x61, count: length)
                    bytes[position] = byte
                    let seen = bytes.withUnsafeBytes(EscapingJSONEncoder.hasByteFrom7F)
                    #expect(seen == (byte >= 0x7F), "length \(length), byte \(byte) at \(position)")
                }
            }
        }
    }
}

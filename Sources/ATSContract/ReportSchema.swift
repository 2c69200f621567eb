#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PropertyList
import TextSupport
import TLSFacts

/// JSONEncoder escapes C0 controls but writes C1 controls, DEL, bidi overrides and line
/// separators raw: valid JSON, yet a `jq -r` or a terminal shows them live. This encoder writes
/// them as \uXXXX, the same value in every JSON reader (UntrustedText's list, one rule for
/// every output channel). The markup is ASCII, so such scalars only ever sit inside strings.
package final class EscapingJSONEncoder: JSONEncoder, @unchecked Sendable {
    /// Set by `JSONEncoder.atsprobe`: dates are `JSONEncoder.civilTimestamp` (its custom
    /// strategy), which CompactJSONWriter writes too.
    fileprivate(set) var writesCivilDates = false

    override package func encode<T: Encodable>(_ value: T) throws -> Data {
        let data = try writesCompactly ? CompactJSONWriter.encode(value) : super.encode(value)
        // Only scalars from U+007F up are rewritten below, and every one of them has a byte at
        // or above 0x7F in UTF-8: output that is all below is returned as it is, without
        // decoding it scalar by scalar (that scan cost 3-5 M instructions per audited target).
        let rewritable = data.withUnsafeBytes(EscapingJSONEncoder.hasByteFrom7F)
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

    /// Whether any byte is 0x7F or above, read eight bytes at a time (byte by byte, this scan
    /// of every record was 0.36 million instructions per audit target; callgrind).
    package static func hasByteFrom7F(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        while index + 8 <= bytes.count {
            let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            if word & 0x8080_8080_8080_8080 != 0 || CompactJSONWriter.hasZeroByte(word ^ 0x7F7F_7F7F_7F7F_7F7F) { return true }
            index += 8
        }
        return bytes[index...].contains { $0 >= 0x7F }
    }

    /// JSONEncoder.atsprobe(pretty: false) as it is made (and as the audit's records use it):
    /// CompactJSONWriter writes the same bytes at a fraction of the cost. Any other setting goes
    /// through JSONEncoder.
    private var writesCompactly: Bool {
        guard outputFormatting == [.sortedKeys, .withoutEscapingSlashes], userInfo.isEmpty,
              writesCivilDates, case .custom = dateEncodingStrategy, case .base64 = dataEncodingStrategy,
              case .useDefaultKeys = keyEncodingStrategy, case .throw = nonConformingFloatEncodingStrategy else { return false }
        return true
    }
}

extension JSONEncoder {
    /// The stable JSON contract: sorted keys, ISO 8601 dates in the proleptic Gregorian
    /// calendar (`civilTimestamp`), no escaped slashes, no raw invisible or control characters
    /// (EscapingJSONEncoder).
    package static func atsprobe(pretty: Bool = true) -> JSONEncoder {
        let encoder = EscapingJSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(civilTimestamp(date))
        }
        encoder.writesCivilDates = true
        return encoder
    }

    /// "2027-01-31T12:00:00Z": UTC, whole seconds, the proleptic Gregorian calendar for every
    /// year (CivilCalendar; Foundation's `.iso8601` writes dates before 1582-10-15 Julian).
    package static func civilTimestamp(_ date: Date) -> String {
        CivilCalendar.timestamp(secondsSinceEpoch: date.timeIntervalSince1970)
    }
}

extension JSONDecoder {
    /// Reads what `JSONEncoder.atsprobe` writes: RFC 3339 dates read in the proleptic Gregorian
    /// calendar (RequestedInstant, the reader of `--at`), so a date written before 1582 reads
    /// back as the same instant.
    package static func atsprobe() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            do throws(RequestedInstant.ParseError) {
                return try RequestedInstant(parsing: text).date
            } catch {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(UntrustedText.escape(text, limit: 60))' is not an RFC 3339 date: \(error.reason)")
            }
        }
        return decoder
    }
}

/// Numbers read back from a record: every conversion is checked, so a value out of range is
/// bad input (a decoding error naming the field), never a trap (issue 24: `Int(1e300)` trapped).
enum CheckedNumber {
    /// The audit's `--deadline` range (Audit.swift refuses others), for `deadlineSeconds`.
    static let deadlineRange = 0.0...86_400.0

    static func deadline<K: CodingKey>(_ container: KeyedDecodingContainer<K>, _ key: K) throws -> Double {
        let value = try container.decode(Double.self, forKey: key)
        guard value.isFinite, value > 0, deadlineRange.contains(value) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: container,
                                                   debugDescription: "out of range (0 to 86400 seconds)")
        }
        return value
    }

    /// A target's handshakes: a live run makes a few dozen (16 tests, their redirects, one
    /// widest probe); the bound keeps every sum over a run's records far from Int's end.
    static let handshakeRange = 0...1_000_000
    /// A target's wall time: a run stops each target within a day (`--deadline`'s range) or
    /// its probes' timeouts; 30 days is far beyond either and keeps every conversion exact.
    static let wallMillisecondsRange = 0.0...2_592_000_000.0
    /// A port of a URL (RFC 3986 with TCP's range; `Target(parsing:)` reads the same).
    static let portRange = 1...65_535

    /// An integer within `range`, else bad input naming the field and the range (`words`).
    static func integer<K: CodingKey>(_ container: KeyedDecodingContainer<K>, _ key: K, in range: ClosedRange<Int>,
                                      _ words: String) throws -> Int {
        let value = try container.decode(Int.self, forKey: key)
        guard range.contains(value) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "out of range (\(words))")
        }
        return value
    }

    /// A finite number within `range`, else bad input naming the field and the range (`words`).
    static func real<K: CodingKey>(_ container: KeyedDecodingContainer<K>, _ key: K, in range: ClosedRange<Double>,
                                   _ words: String) throws -> Double {
        let value = try container.decode(Double.self, forKey: key)
        guard value.isFinite, range.contains(value) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "out of range (\(words))")
        }
        return value
    }

    /// 2^53: beyond it a double no longer holds every integer, and no ATS value comes close.
    static let realBound = 9_007_199_254_740_992.0

    /// A property-list value from a record, with every real finite and within ±2^53 (an
    /// exception value of 1e300 is bad input; Info.plist integers are read as Int, checked by
    /// the decoder).
    static func plist<K: CodingKey>(_ container: KeyedDecodingContainer<K>, _ key: K) throws -> PropertyListValue {
        let value = try container.decode(PropertyListValue.self, forKey: key)
        guard inRange(value) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "a number out of range")
        }
        return value
    }

    private static func inRange(_ value: PropertyListValue) -> Bool {
        switch value {
        case .real(let real): real.isFinite && abs(real) <= realBound
        case .dictionary(let dictionary): dictionary.values.allSatisfy(inRange)
        case .array(let array): array.allSatisfy(inRange)
        case .string, .integer, .boolean, .date, .data: true
        }
    }
}

/// "60 s", "2.5 s": whole seconds as integers only when the conversion is exact.
package enum NumberFormatting {
    package static func seconds(_ value: Double) -> String {
        if value == value.rounded(), let whole = Int(exactly: value) { return "\(whole) s" }
        return "\(value) s"
    }
}

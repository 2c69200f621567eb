#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Encodes each case as its own type, so one conformance serves both encoders atsprobe uses:
/// FoundationEssentials' PropertyListEncoder writes `<integer>`, `<real>`, `<true/>`, `<data>`,
/// `<date>`; a JSONEncoder writes integers as integers (1, not 1.0 or a rounded 2^53), reals as
/// reals, data as base64 and dates by its strategy. Dictionary keys are written sorted.
extension PropertyListValue: Encodable {
    struct DictionaryKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .dictionary(let dictionary):
            var keyed = encoder.container(keyedBy: DictionaryKey.self)
            for (key, value) in dictionary.sorted(by: { $0.key < $1.key }) { try keyed.encode(value, forKey: DictionaryKey(stringValue: key)) }
        case .array(let array):
            var unkeyed = encoder.unkeyedContainer()
            for element in array { try unkeyed.encode(element) }
        case .string(let string):
            var single = encoder.singleValueContainer()
            try single.encode(string)
        case .integer(let integer):
            var single = encoder.singleValueContainer()
            try single.encode(integer)
        case .real(let real):
            var single = encoder.singleValueContainer()
            try single.encode(real)
        case .boolean(let boolean):
            var single = encoder.singleValueContainer()
            try single.encode(boolean)
        case .date(let date):
            var single = encoder.singleValueContainer()
            try single.encode(date)
        case .data(let data):
            var single = encoder.singleValueContainer()
            try single.encode(data)
        }
    }
}

/// Reads a property-list value through FoundationEssentials' PropertyListDecoder, which speaks
/// only Codable. Internal, not `PropertyListValue: Decodable`: the probing below is right only
/// for a plist decoder (a JSON string would decode as base64 data). Reading yields exact types,
/// so `<integer>1</integer>` stays an integer and never passes for `<true/>`. (Foundation's
/// PropertyListSerialization would do this untyped, but linking Foundation on Linux costs the
/// ICU data and about 10 MiB of memory.)
struct PropertyListDecoding: Decodable {
    /// Deeper nesting than this is refused: no Info.plist comes close, and it bounds recursion.
    static let maximumDepth = 64

    let value: PropertyListValue

    init(from decoder: any Decoder) throws {
        guard decoder.codingPath.count <= Self.maximumDepth else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "nested too deeply"))
        }
        if let keyed = try? decoder.container(keyedBy: PropertyListValue.DictionaryKey.self) {
            var dictionary: [String: PropertyListValue] = [:]
            for key in keyed.allKeys { dictionary[key.stringValue] = try keyed.decode(PropertyListDecoding.self, forKey: key).value }
            value = .dictionary(dictionary)
            return
        }
        if var unkeyed = try? decoder.unkeyedContainer() {
            var array: [PropertyListValue] = []
            while !unkeyed.isAtEnd { array.append(try unkeyed.decode(PropertyListDecoding.self).value) }
            value = .array(array)
            return
        }
        // Each decode succeeds only for its own plist element; integers before reals because an
        // integer also decodes as a Double.
        let single = try decoder.singleValueContainer()
        if let boolean = try? single.decode(Bool.self) { value = .boolean(boolean) }
        else if let data = try? single.decode(Data.self) { value = .data(data) }
        else if let date = try? single.decode(Date.self) { value = .date(date) }
        else if let integer = try? single.decode(Int.self) {
            value = Self.holdsReal(single) ? .real(try single.decode(Double.self)) : .integer(integer)
        }
        else if let real = try? single.decode(Double.self) { value = .real(real) }
        else { value = .string(try single.decode(String.self)) }
    }

    /// True when the number is a `<real>` with an integral value (`<real>1</real>`, which also
    /// decodes as an Int). Codable exposes no element type, only the decoder's type-mismatch
    /// description, so this reads that ("found a real number"); if a later Foundation words it
    /// differently the number reads as an integer, as before, and PropertyListTests fail.
    private static func holdsReal(_ single: any SingleValueDecodingContainer) -> Bool {
        do {
            _ = try single.decode(String.self)
            return false
        } catch DecodingError.typeMismatch(_, let context) {
            return context.debugDescription.contains("found a real number")
        } catch {
            return false
        }
    }
}

/// Reads the JSON form `encode(to:)` writes, so types that serialise through a property list
/// (the ATS dictionary) decode from it too. JSON has no data or date type: those come back as
/// strings, and an integral number as an integer. Property-list files are read with
/// `PropertyListFile`, which keeps every plist type.
extension PropertyListValue: Decodable {
    public init(from decoder: any Decoder) throws {
        guard decoder.codingPath.count <= PropertyListDecoding.maximumDepth else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "nested too deeply"))
        }
        if let keyed = try? decoder.container(keyedBy: DictionaryKey.self) {
            var dictionary: [String: PropertyListValue] = [:]
            for key in keyed.allKeys { dictionary[key.stringValue] = try keyed.decode(PropertyListValue.self, forKey: key) }
            self = .dictionary(dictionary)
            return
        }
        if var unkeyed = try? decoder.unkeyedContainer() {
            var array: [PropertyListValue] = []
            while !unkeyed.isAtEnd { array.append(try unkeyed.decode(PropertyListValue.self)) }
            self = .array(array)
            return
        }
        let single = try decoder.singleValueContainer()
        if let boolean = try? single.decode(Bool.self) { self = .boolean(boolean) }
        else if let integer = try? single.decode(Int.self) { self = .integer(integer) }
        else if let real = try? single.decode(Double.self) { self = .real(real) }
        else { self = .string(try single.decode(String.self)) }
    }
}

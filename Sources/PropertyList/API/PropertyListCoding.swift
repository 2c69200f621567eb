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
        case .string, .integer, .real, .boolean, .date, .data:
            var single = encoder.singleValueContainer()
            switch self {
            case .string(let string): try single.encode(string)
            case .integer(let integer): try single.encode(integer)
            case .real(let real): try single.encode(real)
            case .boolean(let boolean): try single.encode(boolean)
            case .date(let date): try single.encode(date)
            case .data(let data): try single.encode(data)
            case .dictionary, .array: break  // handled above
            }
        }
    }
}

extension PropertyListValue {
    /// Deeper nesting than this is refused: no Info.plist comes close, and it bounds recursion.
    static let maximumDepth = 64

    /// Containers are read the same way by both readings: `Element` decodes each child (so the
    /// reading recurses through it) and `scalar` reads everything that is not a container.
    static func decodeTree<Element: Decodable>(_ decoder: any Decoder, element: Element.Type, value: (Element) -> PropertyListValue,
                                               scalar: (any SingleValueDecodingContainer) throws -> PropertyListValue) throws -> PropertyListValue {
        guard decoder.codingPath.count <= maximumDepth else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "nested too deeply"))
        }
        if let keyed = try? decoder.container(keyedBy: DictionaryKey.self) {
            var dictionary: [String: PropertyListValue] = [:]
            for key in keyed.allKeys { dictionary[key.stringValue] = value(try keyed.decode(Element.self, forKey: key)) }
            return .dictionary(dictionary)
        }
        if var unkeyed = try? decoder.unkeyedContainer() {
            var array: [PropertyListValue] = []
            while !unkeyed.isAtEnd { array.append(value(try unkeyed.decode(Element.self))) }
            return .array(array)
        }
        return try scalar(decoder.singleValueContainer())
    }
}

/// Reads a property-list value through FoundationEssentials' PropertyListDecoder, which speaks
/// only Codable. Reading yields exact types, so `<integer>1</integer>` stays an integer and never
/// passes for `<true/>`. Apart from `PropertyListValue: Decodable` (the JSON reading) because the
/// probing is right only for a plist decoder: a JSON string would decode as base64 data.
/// (Foundation's PropertyListSerialization would do this untyped, but linking Foundation on
/// Linux costs the ICU data and about 10 MiB of memory.)
struct PropertyListDecoding: Decodable {
    let value: PropertyListValue

    init(from decoder: any Decoder) throws {
        value = try PropertyListValue.decodeTree(decoder, element: PropertyListDecoding.self, value: \.value, scalar: Self.scalar)
    }

    /// Each decode succeeds only for its own plist element; integers before reals because an
    /// integer also decodes as a Double.
    private static func scalar(_ single: any SingleValueDecodingContainer) throws -> PropertyListValue {
        if let boolean = try? single.decode(Bool.self) { return .boolean(boolean) }
        if let data = try? single.decode(Data.self) { return .data(data) }
        if let date = try? single.decode(Date.self) { return .date(date) }
        if let integer = try? single.decode(Int.self) {
            return holdsReal(single) ? .real(try single.decode(Double.self)) : .integer(integer)
        }
        if let real = try? single.decode(Double.self) { return .real(real) }
        return .string(try single.decode(String.self))
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
        self = try Self.decodeTree(decoder, element: PropertyListValue.self, value: { $0 }) { single in
            if let boolean = try? single.decode(Bool.self) { return .boolean(boolean) }
            if let integer = try? single.decode(Int.self) { return .integer(integer) }
            if let real = try? single.decode(Double.self) { return .real(real) }
            return .string(try single.decode(String.self))
        }
    }
}

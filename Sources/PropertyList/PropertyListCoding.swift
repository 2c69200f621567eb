#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Carries an untyped property-list value (`[String: Any]`, `[Any]`, String, Bool, Int, Double,
/// Data, Date) through FoundationEssentials' PropertyListDecoder and PropertyListEncoder, which
/// speak only Codable. Reading yields exact Swift types, so `<integer>1</integer>` stays an Int
/// and never passes for `<true/>`. (Foundation's PropertyListSerialization would do this
/// untyped, but linking Foundation on Linux costs the ICU data and about 10 MiB of memory.)
struct PropertyListNode: Codable {
    /// Deeper nesting than this is refused: no Info.plist comes close, and it bounds recursion.
    static let maximumDepth = 64

    let value: Any

    init(_ value: Any) { self.value = value }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        guard decoder.codingPath.count <= Self.maximumDepth else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "nested too deeply"))
        }
        if let keyed = try? decoder.container(keyedBy: Key.self) {
            var dictionary: [String: Any] = [:]
            for key in keyed.allKeys { dictionary[key.stringValue] = try keyed.decode(PropertyListNode.self, forKey: key).value }
            value = dictionary
            return
        }
        if var unkeyed = try? decoder.unkeyedContainer() {
            var array: [Any] = []
            while !unkeyed.isAtEnd { array.append(try unkeyed.decode(PropertyListNode.self).value) }
            value = array
            return
        }
        // Each decode succeeds only for its own plist element; integers before reals because an
        // integer also decodes as a Double.
        let single = try decoder.singleValueContainer()
        if let boolean = try? single.decode(Bool.self) { value = boolean }
        else if let data = try? single.decode(Data.self) { value = data }
        else if let date = try? single.decode(Date.self) { value = date }
        else if let integer = try? single.decode(Int.self) { value = integer }
        else if let real = try? single.decode(Double.self) { value = real }
        else { value = try single.decode(String.self) }
    }

    /// Callers check `PropertyListValueKind` first; a non-plist value here is a programming error
    /// reported as an encoding error, never a trap.
    func encode(to encoder: any Encoder) throws {
        switch value {
        case let dictionary as [String: Any]:
            var keyed = encoder.container(keyedBy: Key.self)
            for key in dictionary.keys.sorted() { try keyed.encode(PropertyListNode(dictionary[key]!), forKey: Key(stringValue: key)) }
        case let array as [Any]:
            var unkeyed = encoder.unkeyedContainer()
            for element in array { try unkeyed.encode(PropertyListNode(element)) }
        default:
            var single = encoder.singleValueContainer()
            switch value {
            case let boolean as Bool: try single.encode(boolean)
            case let string as String: try single.encode(string)
            case let data as Data: try single.encode(data)
            case let date as Date: try single.encode(date)
            case let real as Double: try single.encode(real)
            case let real as Float: try single.encode(Double(real))
            case let integer as any BinaryInteger:
                guard let exact = Int64(exactly: integer) else {
                    throw EncodingError.invalidValue(value, .init(codingPath: encoder.codingPath, debugDescription: "integer out of range"))
                }
                try single.encode(exact)
            default:
                throw EncodingError.invalidValue(value, .init(codingPath: encoder.codingPath, debugDescription: "not a property-list value"))
            }
        }
    }
}

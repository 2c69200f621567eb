import Foundation

/// The property-list type of a decoded value. Booleans need care: on both Linux and Darwin an
/// integer 0 or 1 read from a plist is an NSNumber that `as? Bool` happily converts, so a
/// `<integer>1</integer>` would pass for `<true/>` without this.
public enum PropertyListValueKind: String, Hashable, Sendable, Codable {
    case boolean, integer, real, string, data, date, array, dictionary
    /// Not a property-list type (only possible for dictionaries built in memory).
    case other

    public init(of value: Any) {
        switch value {
        case is String: self = .string
        case is [String: Any]: self = .dictionary
        case is [Any]: self = .array
        case is Data: self = .data
        case is Date: self = .date
        default: self = PropertyListValueKind.number(value) ?? .other
        }
    }

    private static func number(_ value: Any) -> PropertyListValueKind? {
        // Swift values built in memory carry their exact type.
        let exact = type(of: value)
        if exact == Bool.self { return .boolean }
        if exact == Double.self || exact == Float.self { return .real }
        let integers: [Any.Type] = [Int.self, Int8.self, Int16.self, Int32.self, Int64.self,
                                    UInt.self, UInt8.self, UInt16.self, UInt32.self, UInt64.self]
        if integers.contains(where: { $0 == exact }) { return .integer }
        guard let number = value as? NSNumber else { return nil }
        // CFBoolean reports "c" (char); plist integers "i"/"q"/"l", reals "d"/"f".
        switch String(cString: number.objCType) {
        case "c", "B": return .boolean
        case "d", "f": return .real
        default: return .integer
        }
    }

    /// "a boolean", "an integer", ... for messages.
    public var withArticle: String {
        switch self {
        case .integer, .array: "an \(rawValue)"
        case .data: "data"
        case .other: "a non-plist value"
        default: "a \(rawValue)"
        }
    }

    /// The kind an ATS key expects.
    init(_ valueType: ATSKey.ValueType) {
        switch valueType {
        case .boolean: self = .boolean
        case .string: self = .string
        case .dictionary: self = .dictionary
        case .array: self = .array
        }
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The property-list type of a decoded value, judged by its exact Swift type: with Foundation's
/// NSNumber bridging, `1 as? Bool` succeeds, so a cast would let `<integer>1</integer>` pass
/// for `<true/>`.
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
        return nil
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
    public init(_ valueType: ATSKey.ValueType) {
        switch valueType {
        case .boolean: self = .boolean
        case .string: self = .string
        case .dictionary: self = .dictionary
        case .array: self = .array
        }
    }
}

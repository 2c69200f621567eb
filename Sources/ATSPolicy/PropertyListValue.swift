#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Lenient readers for values from a decoded property list (`[String: Any]` of Swift values).
public enum PropertyListValue {
    /// A boolean as Apple reads one: <true/>/<false/>, a number (non-zero is YES), or the
    /// strings YES/NO/true/false/1/0 that hand-edited plists sometimes carry.
    public static func bool(_ value: Any?) -> Bool? {
        switch value {
        case let b as Bool: return b
        case let i as Int: return i != 0
        case let r as Double: return r != 0
        case let s as String:
            switch s.lowercased() {
            case "yes", "true", "1": return true
            case "no", "false", "0": return false
            default: return nil
            }
        default: return nil
        }
    }

    public static func string(_ value: Any?) -> String? { value as? String }

    public static func dictionary(_ value: Any?) -> [String: Any]? {
        value as? [String: Any]
    }

    public static func array(_ value: Any?) -> [Any]? {
        value as? [Any]
    }
}

import Foundation

/// Lenient readers for values from a decoded property list (`[String: Any]`), which may hold
/// Swift values or Foundation objects depending on who decoded it.
enum PropertyListValue {
    /// A boolean as Apple reads one: <true/>/<false/>, a number (non-zero is YES), or the
    /// strings YES/NO/true/false/1/0 that hand-edited plists sometimes carry.
    static func bool(_ value: Any?) -> Bool? {
        switch value {
        case let b as Bool: return b
        case let n as NSNumber: return n.intValue != 0
        case let i as Int: return i != 0
        case let s as String:
            switch s.lowercased() {
            case "yes", "true", "1": return true
            case "no", "false", "0": return false
            default: return nil
            }
        default: return nil
        }
    }

    static func string(_ value: Any?) -> String? { value as? String }

    static func dictionary(_ value: Any?) -> [String: Any]? {
        if let d = value as? [String: Any] { return d }
        if let d = value as? NSDictionary {
            var out: [String: Any] = [:]
            for (k, v) in d { if let key = k as? String { out[key] = v } }
            return out
        }
        return nil
    }

    static func array(_ value: Any?) -> [Any]? {
        if let a = value as? [Any] { return a }
        if let a = value as? NSArray { return a.map { $0 } }
        return nil
    }
}

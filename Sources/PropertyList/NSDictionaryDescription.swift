#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Renders property-list values the way NSDictionary's `descriptionWithLocale:indent:` does
/// (the old-style plist form nscurl prints): keys sorted, `key = value;`, four spaces per level,
/// a nested container starting on its key's line after its own indentation, booleans as
/// nscurl shows them (`true`/`false`).
public enum NSDictionaryDescription {
    public static func render(_ value: Any, indent: Int = 0) -> String {
        let pad = String(repeating: "    ", count: indent)
        if let dict = PropertyListValue.dictionary(value), !(value is String) {
            var out = pad + "{\n"
            for key in dict.keys.sorted() {
                out += pad + "    " + quoted(key) + " = " + render(dict[key]!, indent: indent + 1, nested: true) + ";\n"
            }
            return out + pad + "}"
        }
        if let array = PropertyListValue.array(value), !(value is String) {
            let items = array.map { pad + "    " + render($0, indent: indent + 1, nested: true) }
            return pad + "(\n" + items.joined(separator: ",\n") + (items.isEmpty ? "" : "\n") + pad + ")"
        }
        return scalar(value)
    }

    /// Containers carry their own indentation; scalars do not.
    private static func render(_ value: Any, indent: Int, nested: Bool) -> String {
        if value is String { return scalar(value) }
        return render(value, indent: indent)
    }

    private static func scalar(_ value: Any) -> String {
        switch value {
        case let s as String: return quoted(s)
        case let b as Bool: return b ? "true" : "false"
        case let i as Int: return String(i)
        // NSNumber's stringValue: integral reals print without a fraction.
        case let r as Double: return r == r.rounded() && abs(r) < 1e15 ? String(Int(r)) : String(r)
        case let d as Date: return quoted(d.formatted(.iso8601))
        default: return quoted(String(describing: value))
        }
    }

    /// NSString's rule: bare when every character is an ASCII letter, digit or underscore
    /// (and the string is not empty); otherwise in double quotes with \" \\ \n \t \r escaped and
    /// other control or non-ASCII characters as \UXXXX.
    static func quoted(_ text: String) -> String {
        let bare = !text.isEmpty && text.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
        }
        if bare { return text }
        var out = "\""
        for unit in text.utf16 {
            switch unit {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x0A: out += "\\n"
            case 0x09: out += "\\t"
            case 0x0D: out += "\\r"
            case 0x20..<0x7F: out.unicodeScalars.append(Unicode.Scalar(UInt8(unit)))
            default:
                let hex = String(unit, radix: 16)
                out += "\\U" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        return out + "\""
    }
}

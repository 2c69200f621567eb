#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport

/// Renders property-list values the way NSDictionary's `descriptionWithLocale:indent:` does
/// (the old-style plist form nscurl prints): keys sorted, `key = value;`, four spaces per level,
/// a nested container starting on its key's line after its own indentation, booleans as
/// nscurl shows them (`true`/`false`).
package enum NSDictionaryDescription {
    package static func render(_ value: PropertyListValue, indent: Int = 0) -> String {
        let pad = String(repeating: "    ", count: indent)
        switch value {
        case .dictionary(let dict):
            var out = pad + "{\n"
            for (key, element) in dict.sorted(by: { $0.key < $1.key }) {
                out += pad + "    " + quoted(key) + " = " + nested(element, indent: indent + 1) + ";\n"
            }
            return out + pad + "}"
        case .array(let array):
            let items = array.map { pad + "    " + nested($0, indent: indent + 1) }
            return pad + "(\n" + items.joined(separator: ",\n") + (items.isEmpty ? "" : "\n") + pad + ")"
        default:
            return scalar(value)
        }
    }

    /// A dictionary's description (the ATS dictionary, an exception entry).
    package static func render(_ dictionary: [String: PropertyListValue], indent: Int = 0) -> String {
        render(.dictionary(dictionary), indent: indent)
    }

    /// Containers carry their own indentation; scalars do not.
    private static func nested(_ value: PropertyListValue, indent: Int) -> String {
        if case .string = value { return scalar(value) }
        return render(value, indent: indent)
    }

    private static func scalar(_ value: PropertyListValue) -> String {
        switch value {
        case .string(let s): return quoted(s)
        case .boolean(let b): return b ? "true" : "false"
        case .integer(let i): return String(i)
        // NSNumber's stringValue: integral reals print without a fraction.
        case .real(let r): return r == r.rounded() && abs(r) < 1e15 ? String(Int(r)) : String(r)
        case .date(let d): return quoted(CivilCalendar.timestamp(secondsSinceEpoch: d.timeIntervalSince1970))
        case .data(let d): return quoted(String(describing: d))
        case .dictionary, .array: return render(value)
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

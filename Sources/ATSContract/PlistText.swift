import ATSAdvice
import ATSPolicy
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PropertyList

/// A property-list value as an Info.plist shows it in one line: `true`, `TLSv1.0`, `{key = value}`.
package enum PlistText {
    package static func of(_ value: PropertyListValue) -> String {
        switch value {
        case .dictionary(let d): "{" + d.keys.sorted().map { "\($0) = \(of(d[$0]!))" }.joined(separator: "; ") + "}"
        case .array(let a): "(" + a.map(of).joined(separator: ", ") + ")"
        case .string(let s): s
        case .integer(let i): String(i)
        // Reals read from a record are finite and within 2^53 (CheckedNumber); the check stays.
        case .real(let r): r == r.rounded() && abs(r) < 1e15 ? Int(exactly: r).map(String.init) ?? String(r) : String(r)
        case .boolean(let b): b ? "true" : "false"
        case .date, .data: value.scalarText
        }
    }
}

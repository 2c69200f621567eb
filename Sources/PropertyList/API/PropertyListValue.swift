#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport

/// One property-list value, typed: what an Info.plist holds, read from XML or binary
/// (`PropertyListFile`) and written back. Each plist element has its own case, so
/// `<integer>1</integer>` is `.integer(1)` and never passes for `<true/>`; the lenient
/// readers (`boolValue`, ...) read values the way Apple's code does.
public enum PropertyListValue: Sendable, Hashable {
    case dictionary([String: PropertyListValue])
    case array([PropertyListValue])
    case string(String)
    /// Apple's readers hold integers as 64-bit signed numbers (CFNumber kCFNumberSInt64Type).
    case integer(Int)
    case real(Double)
    case boolean(Bool)
    case date(Date)
    case data(Data)

    /// The property-list element type of a value.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        case boolean, integer, real, string, data, date, array, dictionary

        /// "a boolean", "an integer", ... for messages.
        public var withArticle: String {
            switch self {
            case .integer, .array: "an \(rawValue)"
            case .data: "data"
            default: "a \(rawValue)"
            }
        }
    }

    public var kind: Kind {
        switch self {
        case .dictionary: .dictionary
        case .array: .array
        case .string: .string
        case .integer: .integer
        case .real: .real
        case .boolean: .boolean
        case .date: .date
        case .data: .data
        }
    }

    // MARK: Lenient readers (what Apple's code accepts)

    /// A boolean as Apple reads one: <true/>/<false/>, a number (non-zero is YES), or the
    /// strings YES/NO/true/false/1/0 that hand-edited plists sometimes carry.
    public var boolValue: Bool? {
        switch self {
        case .boolean(let b): b
        case .integer(let i): i != 0
        case .real(let r): r != 0
        case .string(let s):
            switch s.lowercased() {
            case "yes", "true", "1": true
            case "no", "false", "0": false
            default: nil
            }
        default: nil
        }
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var dictionaryValue: [String: PropertyListValue]? {
        if case .dictionary(let d) = self { return d }
        return nil
    }

    public var arrayValue: [PropertyListValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The boolean only when the value really is a property-list boolean (lint's strict reading).
    public var exactBool: Bool? {
        if case .boolean(let b) = self { return b }
        return nil
    }

    /// The value under `key` when this is a dictionary; nil otherwise.
    public subscript(key: String) -> PropertyListValue? {
        dictionaryValue?[key]
    }

    /// The scalar as a person reads it in a message: `true`, `1`, `1.5`, the string itself;
    /// containers, dates and data by their kind. Not escaped: callers escape untrusted text.
    public var scalarText: String {
        switch self {
        case .string(let s): s
        case .boolean(let b): b ? "true" : "false"
        case .integer(let i): String(i)
        case .real(let r): String(r)
        case .date(let d): CivilCalendar.timestamp(secondsSinceEpoch: d.timeIntervalSince1970)
        case .data, .array, .dictionary: kind.withArticle
        }
    }
}

/// Scalars as `scalarText`, containers as NSDictionary's description: what interpolating an
/// untyped plist value printed, so no message shows an enum case name.
extension PropertyListValue: CustomStringConvertible {
    public var description: String {
        switch self {
        case .dictionary, .array: NSDictionaryDescription.render(self)
        default: scalarText
        }
    }
}

// Literals, so code and tests write `["NSAllowsArbitraryLoads": true]` as they would in a plist.
extension PropertyListValue: ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral, ExpressibleByStringLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral {
    public init(dictionaryLiteral elements: (String, PropertyListValue)...) {
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(arrayLiteral elements: PropertyListValue...) { self = .array(elements) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
}

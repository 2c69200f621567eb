#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TLSFacts

/// Reads and writes Info.plist-style property lists (XML or binary) with FoundationEssentials'
/// PropertyListDecoder and PropertyListEncoder (through `PropertyListNode`).
public enum PropertyListFile {
    /// The encodings atsprobe reads and writes. Old-style (OpenStep) text plists are refused:
    /// almost any word parses as one, so accepting them would hide "not a property list".
    public enum Format: String, Sendable, Hashable, Codable, CaseIterable {
        case xml
        case binary
    }

    /// Info.plist files are kilobytes; the bound keeps a wrong argument from filling memory.
    public static let defaultMaximumSize = 16 * 1024 * 1024

    /// Reads the file at `path`; the root must be a dictionary.
    public static func read(path: String, maximumSize: Int = defaultMaximumSize) throws(PropertyListError) -> PropertyListDocument {
        let data = try readBounded(path: path, maximumSize: maximumSize)
        return try parse(data, path: path)
    }

    /// Parses property-list bytes; `path` only names the source in errors.
    public static func parse(_ data: Data, path: String) throws(PropertyListError) -> PropertyListDocument {
        // The XML reader recurses once per level before our own depth check can run, so a
        // hostile file nested 100,000 deep would overflow the stack: count levels first.
        if !data.starts(with: Array("bplist".utf8)), xmlNestingDepth(data) > PropertyListNode.maximumDepth {
            throw PropertyListError(path: path, problem: .notAPropertyList)
        }
        var detected = PropertyListDecoder.PropertyListFormat.openStep
        let object: Any
        do {
            object = try PropertyListDecoder().decode(PropertyListNode.self, from: data, format: &detected).value
        } catch {
            throw PropertyListError(path: path, problem: .notAPropertyList)
        }
        let format: Format
        switch detected {
        case .xml: format = .xml
        case .binary: format = .binary
        default: throw PropertyListError(path: path, problem: .notAPropertyList)
        }
        guard let root = object as? [String: Any] else {
            throw PropertyListError(path: path, problem: .topLevelNotDictionary(found: PropertyListValueKind(of: object)))
        }
        return PropertyListDocument(path: path, root: root, format: format)
    }

    /// Encodes `root` as XML or binary; fails when a value is not a property-list type.
    public static func write(_ root: [String: Any], format: Format) throws(PropertyListError) -> Data {
        // Name the offending key rather than report the encoder's coding path.
        if let bad = firstNonPropertyListValue(in: root, path: "") {
            throw PropertyListError(path: nil, problem: .notEncodable(reason: "\(bad) is not a property-list value"))
        }
        do {
            let encoder = PropertyListEncoder()
            encoder.outputFormat = format == .xml ? .xml : .binary
            return try encoder.encode(PropertyListNode(root))
        } catch {
            throw PropertyListError(path: nil, problem: .notEncodable(reason: "\(error)"))
        }
    }

    /// The deepest nesting of <array> and <dict> elements in XML text (self-closing ones do not
    /// nest). A rough count, blind to comments; it only has to be right for real plists.
    static func xmlNestingDepth(_ data: Data) -> Int {
        let bytes = [UInt8](data)
        var depth = 0, deepest = 0, index = 0
        func names(_ name: StaticString, at start: Int) -> Bool {
            let name = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
            guard start + name.count < bytes.count, bytes[start..<(start + name.count)].elementsEqual(name) else { return false }
            let next = bytes[start + name.count]
            return next == UInt8(ascii: ">") || next == UInt8(ascii: "/") || next == UInt8(ascii: " ")
                || next == UInt8(ascii: "\t") || next == UInt8(ascii: "\n") || next == UInt8(ascii: "\r")
        }
        while index < bytes.count {
            defer { index += 1 }
            guard bytes[index] == UInt8(ascii: "<"), index + 1 < bytes.count else { continue }
            if bytes[index + 1] == UInt8(ascii: "/") {
                if names("array", at: index + 2) || names("dict", at: index + 2) { depth -= 1 }
                continue
            }
            guard names("array", at: index + 1) || names("dict", at: index + 1) else { continue }
            let close = bytes[index...].firstIndex(of: UInt8(ascii: ">")) ?? bytes.count - 1
            if bytes[close - 1] == UInt8(ascii: "/") { continue }  // <array/>, <dict/>
            depth += 1
            deepest = max(deepest, depth)
        }
        return deepest
    }

    private static func firstNonPropertyListValue(in value: Any, path: String) -> String? {
        switch PropertyListValueKind(of: value) {
        case .dictionary:
            guard let dictionary = value as? [String: Any] else { return path.isEmpty ? "the root" : "'\(path)'" }
            for key in dictionary.keys.sorted() {
                if let bad = firstNonPropertyListValue(in: dictionary[key]!, path: path.isEmpty ? key : path + "." + key) { return bad }
            }
            return nil
        case .array:
            for (index, element) in (value as? [Any] ?? []).enumerated() {
                if let bad = firstNonPropertyListValue(in: element, path: "\(path)[\(index)]") { return bad }
            }
            return nil
        case .other:
            return "'\(UntrustedText.escape(path, limit: 200))'"
        default:
            return nil
        }
    }

    /// Reads at most `maximumSize` bytes (BoundedFile), so errors name the real cause.
    private static func readBounded(path: String, maximumSize: Int) throws(PropertyListError) -> Data {
        do {
            return Data(try BoundedFile.read(path, limit: maximumSize))
        } catch {
            switch error {
            case .tooLarge: throw PropertyListError(path: path, problem: .unreadable(reason: "larger than \(maximumSize) bytes"))
            case .system(let code): throw PropertyListError(path: path, problem: .unreadable(reason: describe(errno: code)))
            }
        }
    }

    private static func describe(errno code: Int32) -> String {
        switch code {
        case ENOENT: "no such file"
        case EACCES: "permission denied"
        case EISDIR: "is a directory"
        default: String(cString: strerror(code))
        }
    }
}

/// A property list read from a file, with its ATS dictionary located.
public struct PropertyListDocument {
    /// Where it came from, as given (nil when built in memory).
    public var path: String?
    public var root: [String: Any]
    public var format: PropertyListFile.Format

    public init(path: String? = nil, root: [String: Any], format: PropertyListFile.Format = .xml) {
        self.path = path
        self.root = root
        self.format = format
    }

    /// True when the root itself is an ATS dictionary (a fragment, not a whole Info.plist): no
    /// NSAppTransportSecurity key, no CFBundle* key (every app's Info.plist has them), and at
    /// least one top-level key that is a global ATS key or a near miss of one.
    public var isBareATSDictionary: Bool {
        guard root[ATSKey.appTransportSecurity.name] == nil, !root.keys.contains(where: { $0.hasPrefix("CFBundle") }) else { return false }
        let globalNames = ATSKey.keys(in: .global).map(\.name)
        return root.keys.contains { globalNames.contains($0) || KeySuggestion.nearest(to: $0, among: globalNames) != nil }
    }

    /// root["NSAppTransportSecurity"] when it is a dictionary, the root when it is bare, else nil.
    public var atsDictionary: [String: Any]? {
        if isBareATSDictionary { return root }
        return root[ATSKey.appTransportSecurity.name] as? [String: Any]
    }
}

/// Why a property list could not be read or written. The description is one line naming the file.
public struct PropertyListError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Problem: Hashable, Sendable {
        /// The file could not be opened or read ("no such file", "permission denied", ...).
        case unreadable(reason: String)
        case notAPropertyList
        case topLevelNotDictionary(found: PropertyListValueKind)
        /// Writing: a value has no property-list encoding.
        case notEncodable(reason: String)
    }

    public var path: String?
    public var problem: Problem

    public init(path: String?, problem: Problem) {
        self.path = path
        self.problem = problem
    }

    public var description: String {
        let name = "'\(UntrustedText.escape(path ?? "<memory>", limit: 400))'"
        switch problem {
        case .unreadable(let reason): return "cannot read \(name): \(reason)"
        case .notAPropertyList: return "\(name) is not a property list"
        case .topLevelNotDictionary(let found): return "\(name): top level is not a dictionary (found \(found.withArticle))"
        case .notEncodable(let reason): return "cannot write property list: \(reason)"
        }
    }
}

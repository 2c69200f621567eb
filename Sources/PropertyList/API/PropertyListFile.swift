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
import TextSupport

/// Reads and writes Info.plist-style property lists (XML or binary) with FoundationEssentials'
/// PropertyListDecoder and PropertyListEncoder (through `PropertyListDecoding` and
/// `PropertyListValue: Encodable`), within bounds: file size, nesting depth.
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
        if !data.starts(with: Array("bplist".utf8)), xmlNestingDepth(data) > PropertyListValue.maximumDepth {
            throw PropertyListError(path: path, problem: .notAPropertyList)
        }
        var detected = PropertyListDecoder.PropertyListFormat.openStep
        let object: PropertyListValue
        do {
            object = try PropertyListDecoder().decode(PropertyListDecoding.self, from: data, format: &detected).value
        } catch {
            throw PropertyListError(path: path, problem: .notAPropertyList)
        }
        let format: Format
        switch detected {
        case .xml: format = .xml
        case .binary: format = .binary
        default: throw PropertyListError(path: path, problem: .notAPropertyList)
        }
        guard case .dictionary(let root) = object else {
            throw PropertyListError(path: path, problem: .topLevelNotDictionary(found: object.kind))
        }
        return PropertyListDocument(path: path, root: root, format: format)
    }

    /// Encodes `root` as XML or binary; fails when XML cannot carry a string (or the encoder fails).
    public static func write(_ root: [String: PropertyListValue], format: Format) throws(PropertyListError) -> Data {
        // XML 1.0 has no way to write most C0 controls, not even as &#x1B;: the encoder would
        // write them raw and the file would not be XML. Refuse, naming the key.
        if format == .xml, let bad = firstStringOutsideXML(in: .dictionary(root), path: "") {
            throw PropertyListError(path: nil, problem: .notEncodable(reason: "\(bad) holds a control character XML cannot carry; write it as a binary property list"))
        }
        do {
            let encoder = PropertyListEncoder()
            encoder.outputFormat = format == .xml ? .xml : .binary
            let data = try encoder.encode(PropertyListValue.dictionary(root))
            return format == .xml ? escapingInvisibles(data) : data
        } catch {
            throw PropertyListError(path: nil, problem: .notEncodable(reason: "\(error)"))
        }
    }

    /// The deepest nesting of <array> and <dict> elements (the reader's only recursion) in XML
    /// text, never less than the reader will nest: comments, CDATA sections and processing
    /// instructions are skipped whole (a `</array>` inside them closes nothing). Where the
    /// reader's reading is unknown the count errs high: a tag ends at its first `>` (quotes or
    /// not), a tag holding a quote is never taken as self-closing, depth never goes below zero,
    /// and a DOCTYPE's internal subset is scanned like content. One pass, no allocation.
    static func xmlNestingDepth(_ data: Data) -> Int {
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            let count = bytes.count
            func matches(_ pattern: StaticString, at start: Int) -> Bool {
                let pattern = UnsafeBufferPointer(start: pattern.utf8Start, count: pattern.utf8CodeUnitCount)
                guard start + pattern.count <= count else { return false }
                for offset in 0..<pattern.count where bytes[start + offset] != pattern[offset] { return false }
                return true
            }
            /// Index just past the first `terminator` at or after `start`; `count` when none.
            func skip(past terminator: StaticString, from start: Int) -> Int {
                var index = start
                while index < count {
                    if matches(terminator, at: index) { return index + terminator.utf8CodeUnitCount }
                    index += 1
                }
                return count
            }
            /// True when a container's name starts at `start`: "array" or "dict", then a byte
            /// that ends a name (so <arrayish> is not one).
            func container(at start: Int) -> Bool {
                for name: StaticString in ["array", "dict"] where matches(name, at: start) {
                    let next = start + name.utf8CodeUnitCount
                    guard next < count else { return false }
                    let byte = bytes[next]
                    return byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/") || byte == UInt8(ascii: " ")
                        || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
                }
                return false
            }
            var depth = 0, deepest = 0, index = 0
            while index < count {
                guard bytes[index] == UInt8(ascii: "<") else { index += 1; continue }
                if matches("<!--", at: index) {
                    index = skip(past: "-->", from: index + 4)
                } else if matches("<![CDATA[", at: index) {
                    index = skip(past: "]]>", from: index + 9)
                } else if matches("<?", at: index) {
                    index = skip(past: "?>", from: index + 2)
                } else if matches("<!", at: index) || matches("</", at: index) {
                    if bytes[index + 1] == UInt8(ascii: "/"), container(at: index + 2) { depth = max(depth - 1, 0) }
                    index = skip(past: ">", from: index + 2)
                } else {
                    let end = skip(past: ">", from: index + 1)
                    let tag = bytes[index..<end]
                    let selfClosing = end - index >= 3 && end <= count && bytes[end - 1] == UInt8(ascii: ">")
                        && bytes[end - 2] == UInt8(ascii: "/") && !tag.contains(UInt8(ascii: "\"")) && !tag.contains(UInt8(ascii: "'"))
                    if !selfClosing, container(at: index + 1) {
                        depth += 1
                        deepest = max(deepest, depth)
                    }
                    index = end
                }
            }
            return deepest
        }
    }

    /// True for the scalars XML 1.0 cannot carry at all (section 2.2, Char): C0 controls other
    /// than tab, LF and CR, and U+FFFE/U+FFFF.
    static func isOutsideXML(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar.value != 0x09 && scalar.value != 0x0A && scalar.value != 0x0D)
            || scalar.value == 0xFFFE || scalar.value == 0xFFFF
    }

    /// The first key or string (as "'path'", escaped) holding a scalar XML cannot carry.
    private static func firstStringOutsideXML(in value: PropertyListValue, path: String) -> String? {
        func named(_ path: String) -> String { "'\(UntrustedText.escape(path.isEmpty ? "<root>" : path, limit: 200))'" }
        switch value {
        case .string(let string):
            return string.unicodeScalars.contains(where: isOutsideXML) ? named(path) : nil
        case .dictionary(let dictionary):
            for (key, element) in dictionary.sorted(by: { $0.key < $1.key }) {
                let child = path.isEmpty ? key : path + "." + key
                if key.unicodeScalars.contains(where: isOutsideXML) { return named(child) }
                if let bad = firstStringOutsideXML(in: element, path: child) { return bad }
            }
            return nil
        case .array(let array):
            for (index, element) in array.enumerated() {
                if let bad = firstStringOutsideXML(in: element, path: "\(path)[\(index)]") { return bad }
            }
            return nil
        default:
            return nil
        }
    }

    /// The encoder's XML with C1 controls, DEL and bidi or line/paragraph separators written as
    /// character references: the same value, but nothing that reorders or hides text on a
    /// terminal or in an editor. The markup is ASCII, so such scalars only occur in text.
    static func escapingInvisibles(_ data: Data) -> Data {
        let text = String(decoding: data, as: UTF8.self)
        guard text.unicodeScalars.contains(where: UntrustedText.isInvisibleOrControl) else { return data }
        var out = ""
        out.reserveCapacity(text.utf8.count + 64)
        for scalar in text.unicodeScalars {
            if scalar.value >= 0x7F, UntrustedText.isInvisibleOrControl(scalar) {
                out += "&#x\(String(scalar.value, radix: 16, uppercase: true));"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return Data(out.utf8)
    }

    /// Reads at most `maximumSize` bytes (BoundedFile), so errors name the real cause. Public for
    /// callers that need the bytes as well as the document (key positions: read once, so a pipe
    /// works too), then `parse`.
    public static func readBounded(path: String, maximumSize: Int) throws(PropertyListError) -> Data {
        do {
            return Data(try BoundedFile.read(path, limit: maximumSize))
        } catch {
            switch error {
            case .tooLarge: throw PropertyListError(path: path, problem: .unreadable(reason: "larger than \(maximumSize) bytes"))
            case .system(let code): throw PropertyListError(path: path, problem: .unreadable(reason: describe(errno: code)))
            case .notAFile: throw PropertyListError(path: path, problem: .unreadable(reason: error.reason))
            }
        }
    }

    /// `BoundedFile.describe`, but a missing file reads "no such file" here, as plist.md and
    /// lint.md document the plist commands' message.
    private static func describe(errno code: Int32) -> String {
        code == ENOENT ? "no such file" : BoundedFile.describe(errno: code)
    }
}

/// A property list read from a file (its ATS dictionary is located by ATSPolicy's extension).
public struct PropertyListDocument: Sendable, Hashable {
    /// Where it came from, as given (nil when built in memory).
    public var path: String?
    public var root: [String: PropertyListValue]
    public var format: PropertyListFile.Format

    public init(path: String? = nil, root: [String: PropertyListValue], format: PropertyListFile.Format = .xml) {
        self.path = path
        self.root = root
        self.format = format
    }
}

/// Why a property list could not be read or written. The description is one line naming the file.
public struct PropertyListError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Problem: Hashable, Sendable {
        /// The file could not be opened or read ("no such file", "permission denied", ...).
        case unreadable(reason: String)
        case notAPropertyList
        case topLevelNotDictionary(found: PropertyListValue.Kind)
        /// Writing: a string XML cannot carry, or the encoder failed.
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

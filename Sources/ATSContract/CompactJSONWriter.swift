#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import TLSFacts

/// The audit's JSON Lines, written as FoundationEssentials' JSONEncoder writes them with
/// `[.sortedKeys, .withoutEscapingSlashes]`, ISO 8601 dates, base64 data and default keys, byte
/// for byte, at a fraction of the cost (issue 23, item 2: JSONEncoder took 18.8 M instructions of
/// the 81.0 M each audited target cost; docs/performance.md). It is still an `Encoder`, so every type keeps its one
/// `Encodable` conformance; what it leaves out is JSONEncoder's per-value work: four dynamic casts
/// (Date, Data, URL, Decimal) and fifteen array casts for every nested value, a hashed dictionary
/// per object copied once more before writing, and a value enum rebuilt from a reference tree.
/// Here a value's type is compared with a few known types (a pointer comparison), an object is
/// an array of keys and values (a few keys each: a linear search costs less than hashing), and
/// the tree is written as it stands.
///
/// What JSONEncoder does, kept: keys sorted by their UTF-8 bytes; a key written twice keeps the
/// last value (a nested container asked for twice under one key is the same container); a value
/// that encodes nothing is `{}`; integers as `description`, floating point as `description`
/// without a trailing ".0", non-finite numbers refused; strings escaped as JSONWriter does
/// (quote, backslash, \b \f \n \r \t, other C0 as \u00XX, slashes unescaped). `JSONEncoder.atsprobe
/// (pretty: false)` uses it (EscapingJSONEncoder), and `CompactJSONWriterTests` compares it with
/// JSONEncoder on real records and generated values.
enum CompactJSONWriter {
    static func encode<T: Encodable>(_ value: T) throws -> Data {
        let root = CompactEncoder(parent: nil, key: nil)
        let node = try root.box(value)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(4096)
        try write(node, into: &bytes, depth: 0)
        return Data(bytes)
    }

    /// JSONWriter's limit on nesting.
    private static let maximumDepth = 512

    /// Writes `node` nested `depth` containers deep; returns how many levels of containers it
    /// holds (0 for a scalar), so that a subtree written ahead (`CompactNode.written`) is refused
    /// where its own deepest container would have been.
    @discardableResult
    static func write(_ node: CompactNode, into out: inout [UInt8], depth: Int) throws -> Int {
        switch node {
        case .string(let string): writeString(string, into: &out); return 0
        case .number(let text): out.append(contentsOf: text.utf8); return 0
        case .integer(let integer): out.append(contentsOf: integer.description.utf8); return 0
        case .bool(let flag): flag ? out.append(contentsOf: "true".utf8) : out.append(contentsOf: "false".utf8); return 0
        case .null: out.append(contentsOf: "null".utf8); return 0
        case .written(let bytes, let levels):
            // Its deepest container is `levels - 1` below this one, and each container at depth
            // d needs d + 1 < maximumDepth.
            guard levels == 0 || depth + levels < maximumDepth else { throw CompactNode.tooDeep() }
            out.append(contentsOf: bytes)
            return levels
        case .array(let array):
            guard depth + 1 < maximumDepth else { throw CompactNode.tooDeep() }
            out.append(UInt8(ascii: "["))
            var inner = 0
            for (index, element) in array.elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                inner = max(inner, try write(element, into: &out, depth: depth + 1))
            }
            out.append(UInt8(ascii: "]"))
            return inner + 1
        case .object(let object):
            guard depth + 1 < maximumDepth else { throw CompactNode.tooDeep() }
            out.append(UInt8(ascii: "{"))
            var inner = 0
            for (position, index) in object.sortedIndices().enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                writeString(object.keys[index], into: &out)
                out.append(UInt8(ascii: ":"))
                inner = max(inner, try write(object.values[index], into: &out, depth: depth + 1))
            }
            out.append(UInt8(ascii: "}"))
            return inner + 1
        }
    }

    /// `node` as the bytes `write` gives it, kept to be written again wherever an equal value
    /// comes (CompactMemo): each later use is a copy of the bytes, not a second walk.
    static func written(_ node: CompactNode) throws -> CompactNode {
        var bytes: [UInt8] = []
        let levels = try write(node, into: &bytes, depth: 0)
        return .written(bytes, levels: levels)
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// Whether any of the eight bytes in `word` is a control character (below 0x20), a quote or
    /// a backslash: the bytes writeString escapes.
    @inline(__always)
    static func needsEscape(_ word: UInt64) -> Bool {
        hasByteBelow(0x20, in: word) || hasZeroByte(word ^ 0x2222_2222_2222_2222) || hasZeroByte(word ^ 0x5C5C_5C5C_5C5C_5C5C)
    }

    /// Whether any of the eight bytes in `word` is zero (XOR a word of one repeated byte first to
    /// ask for that byte).
    @inline(__always)
    static func hasZeroByte(_ word: UInt64) -> Bool { hasByteBelow(1, in: word) }

    /// Whether any of the eight bytes in `word` is below `limit` (at most 0x80): exact as a whole,
    /// though a borrow may mark a byte above one that is below.
    @inline(__always)
    static func hasByteBelow(_ limit: UInt8, in word: UInt64) -> Bool {
        (word &- 0x0101_0101_0101_0101 &* UInt64(limit)) & ~word & 0x8080_8080_8080_8080 != 0
    }

    /// JSONWriter.serializeString with `.withoutEscapingSlashes`.
    private static func writeString(_ string: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { bytes in
            var mark = 0
            var index = 0
            while index < bytes.count {
                // Eight bytes at a time past runs that need no escape (a record is mostly such
                // text: names, hex fingerprints, base64): byte by byte, this loop was 1.7 million
                // instructions per audit record (callgrind, docs/performance.md).
                if index + 8 <= bytes.count,
                   !needsEscape(UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt64.self)) {
                    index += 8
                    continue
                }
                let byte = bytes[index]
                index += 1
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[mark..<index - 1]))
                mark = index
                switch byte {
                case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
                case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
                case 0x08: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
                case 0x0C: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
                case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
                case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
                case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
                default:
                    out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                            hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[mark...]))
        }
        out.append(UInt8(ascii: "\""))
    }
}

/// One encoded value. Containers are classes so that a container handed out earlier keeps
/// writing into the tree (as JSONEncoder's reference tree does).
enum CompactNode {
    case string(String)
    case number(String)
    case integer(Int)
    case bool(Bool)
    case null
    case array(CompactArray)
    case object(CompactObject)
    /// A subtree already written (CompactJSONWriter.written): its bytes, and how many levels of
    /// containers it holds.
    case written([UInt8], levels: Int)

    /// JSONWriter's error for nesting deeper than 512.
    static func tooDeep() -> EncodingError {
        EncodingError.invalidValue(0, .init(codingPath: [], debugDescription: "Unable to encode the given top-level value to JSON."))
    }
}

final class CompactArray {
    var elements: [CompactNode] = []
}

final class CompactObject {
    var keys: [String] = []
    var values: [CompactNode] = []

    /// A key written again replaces its value, as in JSONEncoder's dictionary (String equality).
    func set(_ value: CompactNode, for key: String) {
        if let index = keys.firstIndex(of: key) {
            values[index] = value
        } else {
            keys.append(key)
            values.append(value)
        }
    }

    /// The nested object under `key`: the one already there, or a new one in place of any value.
    func object(for key: String) -> CompactObject {
        if let index = keys.firstIndex(of: key) {
            switch values[index] {
            case .object(let object): return object
            case .array: preconditionFailure("For key \"\(key)\" an unkeyed container has already been created.")
            default: break
            }
        }
        let object = CompactObject()
        set(.object(object), for: key)
        return object
    }

    func array(for key: String) -> CompactArray {
        if let index = keys.firstIndex(of: key) {
            switch values[index] {
            case .array(let array): return array
            case .object: preconditionFailure("For key \"\(key)\" a keyed container has already been created.")
            default: break
            }
        }
        let array = CompactArray()
        set(.array(array), for: key)
        return array
    }

    /// Positions in key order, by UTF-8 bytes (JSONWriter's `.sortedKeys` off Darwin).
    func sortedIndices() -> [Int] {
        keys.indices.sorted { Self.utf8Precedes(keys[$0], keys[$1]) }
    }

    /// `a.utf8.lexicographicallyPrecedes(b.utf8)`, compared with memcmp where both strings are
    /// contiguous UTF-8 (native strings always are), not byte by byte through the generic view.
    static func utf8Precedes(_ a: String, _ b: String) -> Bool {
        let fast = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y -> Bool in
                let common = min(x.count, y.count)
                let order = common == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, common)
                return order != 0 ? order < 0 : x.count < y.count
            }
        }
        return (fast ?? nil) ?? a.utf8.lexicographicallyPrecedes(b.utf8)
    }
}

/// A document's chains, evaluations and hops already written, each kept as the bytes written for
/// it (`CompactNode.written`): every hop of a record carries the chain its server sent and that
/// chain's evaluation, all the hops to one server are usually served the same chain (10 copies
/// per audited target), and tests that share a handshake carry equal hops, so each alike value
/// after the first is a copy of those bytes, neither encoded nor walked again (3 M instructions
/// an audited target; docs/performance.md, "Session 9"). Only for these types, whose equal
/// values encode to equal bytes: their fields are strings, integers, dates (written to the
/// second), arrays and optionals of such, no Set or Dictionary whose order could differ between
/// equal values, no Double whose -0.0 equals 0.0 (a hop's two are compared bit for bit).
final class CompactMemo {
    /// Values of one type written in a document, with their nodes, the newest last; at most
    /// `capacity`, the oldest dropped first.
    final class Kept<Value> {
        private var entries: [(value: Value, node: CompactNode)] = []
        private let capacity: Int
        /// When a value may be written as another: equal, and encoding to the same bytes.
        private let alike: (Value, Value) -> Bool

        init(capacity: Int, alike: @escaping (Value, Value) -> Bool) {
            self.capacity = capacity
            self.alike = alike
        }

        /// The node of a value written before that `value` is alike, else `encode`'s, written
        /// now (`CompactJSONWriter.written`) and kept.
        func node(for value: Value, encode: () throws -> CompactNode) throws -> CompactNode {
            if let kept = entries.last(where: { alike($0.value, value) }) { return kept.node }
            let node = try CompactJSONWriter.written(encode())
            if entries.count == capacity { entries.removeFirst() }
            entries.append((value, node))
            return node
        }
    }

    /// All the hops to one server are usually served one chain and evaluation: the last is kept.
    let chain = Kept<[CertificateFacts]>(capacity: 1, alike: ==)
    let trust = Kept<TrustEvaluation>(capacity: 1, alike: ==)
    /// The tests that share a handshake carry equal hops (a target's 16 tests over its 10
    /// handshakes; at most 12 handshakes a target, a redirect's hop one more). A hop's fields
    /// are of the kinds above, with two Doubles, the connect and handshake times, compared bit
    /// for bit as well (-0.0 equals 0.0 but is written "-0").
    let hops = Kept<DiagnosticsJSON.HopJSON>(capacity: 32) { a, b in
        a == b && a.observation?.connectMilliseconds.bitPattern == b.observation?.connectMilliseconds.bitPattern
            && a.observation?.handshakeMilliseconds.bitPattern == b.observation?.handshakeMilliseconds.bitPattern
    }
}

/// The Encoder handed to each value's `encode(to:)`: it holds what that value wrote.
final class CompactEncoder: Encoder, SingleValueEncodingContainer {
    private enum Storage {
        case empty
        case single(CompactNode)
        case array(CompactArray)
        case object(CompactObject)
    }

    private var storage = Storage.empty
    private let parent: CompactEncoder?
    private let key: (any CodingKey)?
    private let memo: CompactMemo

    init(parent: CompactEncoder?, key: (any CodingKey)?) {
        self.parent = parent
        self.key = key
        memo = parent?.memo ?? CompactMemo()
    }

    var codingPath: [any CodingKey] {
        var path: [any CodingKey] = []
        var encoder: CompactEncoder? = self
        while let current = encoder {
            if let key = current.key { path.append(key) }
            encoder = current.parent
        }
        return path.reversed()
    }

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// What this encoder holds; a value that wrote nothing is an empty object, as in JSONEncoder.
    var node: CompactNode {
        switch storage {
        case .empty: .object(CompactObject())
        case .single(let node): node
        case .array(let array): .array(array)
        case .object(let object): .object(object)
        }
    }

    /// `value` as a node: the types JSONEncoder treats specially by type (compared, not cast),
    /// the scalars directly, anything else through its own `encode(to:)` on a child encoder.
    func box<T: Encodable>(_ value: T, key: (any CodingKey)? = nil) throws -> CompactNode {
        if T.self == String.self { return .string(unsafeBitCast(value, to: String.self)) }
        if T.self == Int.self { return .integer(unsafeBitCast(value, to: Int.self)) }
        if T.self == Bool.self { return .bool(unsafeBitCast(value, to: Bool.self)) }
        if T.self == Double.self { return try number(unsafeBitCast(value, to: Double.self), key: key) }
        if T.self == Date.self { return .string(JSONEncoder.civilTimestamp(unsafeBitCast(value, to: Date.self))) }
        if T.self == Data.self { return .string((value as! Data).base64EncodedString()) }
        if T.self == URL.self { return .string((value as! URL).absoluteString) }
        if T.self == Decimal.self { return .number((value as! Decimal).description) }
        if T.self == [CertificateFacts].self {
            return try memo.chain.node(for: value as! [CertificateFacts]) { try encodeChild(value, key: key) }
        }
        if T.self == DiagnosticsJSON.HopJSON.self {
            return try memo.hops.node(for: value as! DiagnosticsJSON.HopJSON) { try encodeChild(value, key: key) }
        }
        if T.self == TrustEvaluation.self {
            return try memo.trust.node(for: value as! TrustEvaluation) { try encodeChild(value, key: key) }
        }
        return try encodeChild(value, key: key)
    }

    private func encodeChild<T: Encodable>(_ value: T, key: (any CodingKey)?) throws -> CompactNode {
        let child = CompactEncoder(parent: self, key: key)
        try value.encode(to: child)
        return child.node
    }

    func number<F: BinaryFloatingPoint & CustomStringConvertible>(_ value: F, key: (any CodingKey)?) throws -> CompactNode {
        guard value.isFinite else {
            var path = codingPath
            if let key { path.append(key) }
            throw EncodingError.invalidValue(value, .init(codingPath: path, debugDescription: "Unable to encode \(F.self).\(value) directly in JSON."))
        }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return .number(text)
    }

    // MARK: Encoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let object: CompactObject
        switch storage {
        case .object(let existing): object = existing
        case .empty: object = CompactObject(); storage = .object(object)
        case .single(.object(let existing)): object = existing; storage = .object(object)
        case .single, .array: preconditionFailure("Attempt to push new keyed encoding container when already previously encoded at this path.")
        }
        return KeyedEncodingContainer(CompactKeyedContainer<Key>(encoder: self, object: object, path: []))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let array: CompactArray
        switch storage {
        case .array(let existing): array = existing
        case .empty: array = CompactArray(); storage = .array(array)
        case .single(.array(let existing)): array = existing; storage = .array(array)
        case .single, .object: preconditionFailure("Attempt to push new unkeyed encoding container when already previously encoded at this path.")
        }
        return CompactUnkeyedContainer(encoder: self, array: array, path: [])
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    // MARK: SingleValueEncodingContainer

    private func set(_ node: CompactNode) {
        guard case .empty = storage else {
            preconditionFailure("Attempt to encode value through single value container when previously value already encoded.")
        }
        storage = .single(node)
    }

    func encodeNil() throws { set(.null) }
    func encode(_ value: Bool) throws { set(.bool(value)) }
    func encode(_ value: String) throws { set(.string(value)) }
    func encode(_ value: Double) throws { set(try number(value, key: nil)) }
    func encode(_ value: Float) throws { set(try number(value, key: nil)) }
    func encode(_ value: Int) throws { set(.integer(value)) }
    func encode(_ value: Int8) throws { set(.integer(Int(value))) }
    func encode(_ value: Int16) throws { set(.integer(Int(value))) }
    func encode(_ value: Int32) throws { set(.integer(Int(value))) }
    func encode(_ value: Int64) throws { set(.integer(Int(value))) }
    func encode(_ value: UInt) throws { set(.number(value.description)) }
    func encode(_ value: UInt8) throws { set(.integer(Int(value))) }
    func encode(_ value: UInt16) throws { set(.integer(Int(value))) }
    func encode(_ value: UInt32) throws { set(.integer(Int(value))) }
    func encode(_ value: UInt64) throws { set(.number(value.description)) }
    func encode<T: Encodable>(_ value: T) throws { set(try box(value)) }
}

/// The path of a container nested inside another one (nestedContainer), below its encoder's.
private struct PathKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) { stringValue = "Index \(intValue)"; self.intValue = intValue }
}

struct CompactKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: CompactEncoder
    let object: CompactObject
    /// Keys of containers nested within the encoder's own (usually none).
    let path: [any CodingKey]

    var codingPath: [any CodingKey] { encoder.codingPath + path }

    /// The child encoder's key: the full key when this container is nested, else the key itself.
    private func childKey(_ key: Key) -> any CodingKey {
        path.isEmpty ? key : PathKey(stringValue: (path.map(\.stringValue) + [key.stringValue]).joined(separator: "."))
    }

    mutating func encodeNil(forKey key: Key) throws { object.set(.null, for: key.stringValue) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { object.set(.bool(value), for: key.stringValue) }
    mutating func encode(_ value: String, forKey key: Key) throws { object.set(.string(value), for: key.stringValue) }
    mutating func encode(_ value: Double, forKey key: Key) throws { object.set(try encoder.number(value, key: key), for: key.stringValue) }
    mutating func encode(_ value: Float, forKey key: Key) throws { object.set(try encoder.number(value, key: key), for: key.stringValue) }
    mutating func encode(_ value: Int, forKey key: Key) throws { object.set(.integer(value), for: key.stringValue) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { object.set(.integer(Int(value)), for: key.stringValue) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { object.set(.integer(Int(value)), for: key.stringValue) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { object.set(.integer(Int(value)), for: key.stringValue) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { object.set(.integer(Int(value)), for: key.stringValue) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { object.set(.number(value.description), for: key.stringValue) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { object.set(.integer(Int(value)), for: key.stringValue) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { object.set(.integer(Int(value)), for: key.stringValue) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { object.set(.integer(Int(value)), for: key.stringValue) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { object.set(.number(value.description), for: key.stringValue) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        object.set(try encoder.box(value, key: childKey(key)), for: key.stringValue)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(CompactKeyedContainer<NestedKey>(encoder: encoder, object: object.object(for: key.stringValue), path: path + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        CompactUnkeyedContainer(encoder: encoder, array: object.array(for: key.stringValue), path: path + [key])
    }

    mutating func superEncoder() -> any Encoder { superEncoder(forKey: Key(stringValue: "super")!) }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        CompactReferencingEncoder(parent: encoder, key: childKey(key)) { [object] node in object.set(node, for: key.stringValue) }
    }
}

struct CompactUnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: CompactEncoder
    let array: CompactArray
    let path: [any CodingKey]

    var codingPath: [any CodingKey] { encoder.codingPath + path }
    var count: Int { array.elements.count }

    private func childKey() -> any CodingKey { PathKey(intValue: array.elements.count) }

    mutating func encodeNil() throws { array.elements.append(.null) }
    mutating func encode(_ value: Bool) throws { array.elements.append(.bool(value)) }
    mutating func encode(_ value: String) throws { array.elements.append(.string(value)) }
    mutating func encode(_ value: Double) throws { array.elements.append(try encoder.number(value, key: childKey())) }
    mutating func encode(_ value: Float) throws { array.elements.append(try encoder.number(value, key: childKey())) }
    mutating func encode(_ value: Int) throws { array.elements.append(.integer(value)) }
    mutating func encode(_ value: Int8) throws { array.elements.append(.integer(Int(value))) }
    mutating func encode(_ value: Int16) throws { array.elements.append(.integer(Int(value))) }
    mutating func encode(_ value: Int32) throws { array.elements.append(.integer(Int(value))) }
    mutating func encode(_ value: Int64) throws { array.elements.append(.integer(Int(value))) }
    mutating func encode(_ value: UInt) throws { array.elements.append(.number(value.description)) }
    mutating func encode(_ value: UInt8) throws { array.elements.append(.integer(Int(value))) }
    mutating func encode(_ value: UInt16) throws { array.elements.append(.integer(Int(value))) }
    mutating func encode(_ value: UInt32) throws { array.elements.append(.integer(Int(value))) }
    mutating func encode(_ value: UInt64) throws { array.elements.append(.number(value.description)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        array.elements.append(try encoder.box(value, key: path.isEmpty ? childKey() : nil))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let object = CompactObject()
        let key = childKey()
        array.elements.append(.object(object))
        return KeyedEncodingContainer(CompactKeyedContainer<NestedKey>(encoder: encoder, object: object, path: path + [key]))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = CompactArray()
        let key = childKey()
        array.elements.append(.array(nested))
        return CompactUnkeyedContainer(encoder: encoder, array: nested, path: path + [key])
    }

    mutating func superEncoder() -> any Encoder {
        let index = array.elements.count
        return CompactReferencingEncoder(parent: encoder, key: childKey()) { [array] node in array.elements.insert(node, at: index) }
    }
}

/// superEncoder(): what it holds goes into its parent's container when it is released, as in
/// JSONEncoder's __JSONReferencingEncoder.
final class CompactReferencingEncoder: Encoder {
    private let inner: CompactEncoder
    private let finish: (CompactNode) -> Void

    init(parent: CompactEncoder, key: any CodingKey, finish: @escaping (CompactNode) -> Void) {
        inner = CompactEncoder(parent: parent, key: key)
        self.finish = finish
    }

    deinit { finish(inner.node) }

    var codingPath: [any CodingKey] { inner.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> { inner.container(keyedBy: type) }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { inner.unkeyedContainer() }
    func singleValueContainer() -> any SingleValueEncodingContainer { inner.singleValueContainer() }
}

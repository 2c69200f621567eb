internal import CLibXML2
import TextSupport
#if canImport(Glibc)
import Glibc
#endif

/// A 1-based line and column in a text file (columns count characters, a tab is one).
package struct SourcePosition: Sendable, Hashable, Codable, CustomStringConvertible {
    package var line: Int
    package var column: Int

    package init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    package var description: String { "\(line):\(column)" }
}

/// Where each key of an XML property list starts, by key path: dotted keys from the root
/// dictionary, "[n]" for array elements, each key escaped as the linter escapes it
/// (`UntrustedText.escape(key, limit: 200)`, ATSAdvice's LintKeyPath), so a lint finding's
/// `keyPath` is looked up as it is. A key's position is its `<key>` element; an array
/// element's is the element itself.
///
/// Positions come from libxml2's SAX2 parser (the system libxml2): the line from its
/// locator (`xmlSAX2GetLineNumber`), the element's start from its byte offset
/// (`xmlByteConsumed`, moved back to the tag's `<`). The file is parsed as it is, without
/// the network, external entities or DTD loading. Binary property lists have no lines:
/// callers locate their findings at the file.
package struct KeyPositions: Sendable {
    /// Key path -> where its key starts.
    package private(set) var byPath: [String: SourcePosition]
    /// The root `<dict>`: where a path with no key in the file (a missing key) is located
    /// when none of its enclosing keys is in the file either.
    package private(set) var root: SourcePosition?
    /// Key path ("" for the root dictionary) -> where its value element lies in the bytes, for
    /// edits that keep the rest of the file as it is (`--merge`).
    package private(set) var valueSpans: [String: ValueSpan] = [:]

    /// Where one value element lies: `start` at its `<`, `end` just past its last `>`, and for
    /// a dictionary or array written with an end tag, where that `</dict>` starts.
    package struct ValueSpan: Sendable, Hashable {
        package var start: Int
        package var end: Int
        /// nil for an empty element (`<dict/>`).
        package var closingTagStart: Int?
    }

    /// The linter's escaping of one key (ATSAdvice LintKeyPath.appending).
    package static func pathComponent(_ key: String) -> String { UntrustedText.escape(key, limit: 200) }

    /// Reads `bytes` as an XML property list; nil when libxml2 finds it not well-formed (a
    /// binary plist, or XML that FoundationEssentials reads but libxml2 does not).
    /// libxml2 is loaded on the first call (`LibXML2.loaded`), not when the process starts;
    /// without it (not installed) every file reads as having no positions, as a binary one.
    package static func read(xml bytes: [UInt8]) -> KeyPositions? {
        guard !bytes.isEmpty, bytes.count <= Int(Int32.max), let xml = LibXML2.loaded else { return nil }
        let collector = Collector(bytes: bytes)
        let wellFormed: Bool = bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return false }
            let memory = UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self)
            guard let context = xml.createMemoryParserCtxt(memory, Int32(buffer.count)) else { return false }
            defer { xml.freeParserCtxt(context) }
            // No network, no external entities substituted, no DTD loaded: the file alone.
            _ = xml.ctxtUseOptions(context, Int32(XML_PARSE_NONET.rawValue))
            // Our callbacks only, in the handler the context owns (xmlFreeParserCtxt frees it).
            guard let sax = context.pointee.sax else { return false }
            sax.pointee = xmlSAXHandler()
            sax.pointee.initialized = UInt32(XML_SAX2_MAGIC)
            sax.pointee.startElementNs = startElement
            sax.pointee.endElementNs = endElement
            sax.pointee.characters = characters
            sax.pointee.cdataBlock = characters
            sax.pointee.serror = ignoreError  // never print to stderr; a bad file just has no positions
            context.pointee.userData = UnsafeMutableRawPointer(context)
            let unmanaged = Unmanaged.passRetained(collector)
            defer { unmanaged.release() }
            context.pointee._private = unmanaged.toOpaque()
            let status = xml.parseDocument(context)
            return status == 0 && context.pointee.wellFormed != 0
        }
        guard wellFormed else { return nil }
        return KeyPositions(byPath: collector.byPath, root: collector.root, valueSpans: collector.spans)
    }

    /// The position of `keyPath`, or of the nearest enclosing key in the file (a finding on a
    /// missing key points at the dictionary that lacks it), or the root dictionary.
    package func position(of keyPath: String) -> SourcePosition? {
        var candidate = Substring(keyPath)
        while true {
            if let position = byPath[String(candidate)] { return position }
            // Domain keys contain dots: try every shorter prefix ending before a "." or "[".
            guard let cut = candidate.lastIndex(where: { $0 == "." || $0 == "[" }) else { return root }
            candidate = candidate[..<cut]
        }
    }

    /// Whether `keyPath` is itself a key in the file.
    package func contains(_ keyPath: String) -> Bool { byPath[keyPath] != nil }
}

/// The system libxml2, opened with dlopen on first use rather than linked: a linked libxml2
/// (and the ICU and lzma libraries Debian's brings: libicuuc, libicudata, liblzma) was loaded
/// and relocated at the start of every command, a probe of one host included, for the one use
/// here (`plist lint|check --format xcode|sarif`, `plist fix --merge`). Opened by the soname of
/// the headers built against (libxml2 2.14 moved from libxml2.so.2 to libxml2.so.16), so the
/// structures the parser shares with us (`xmlParserCtxt`, `xmlSAXHandler`) are the ones those
/// headers describe. docs/performance.md, "Start-up".
struct LibXML2: @unchecked Sendable {
    typealias Context = UnsafeMutablePointer<xmlParserCtxt>
    let createMemoryParserCtxt: @convention(c) (UnsafePointer<CChar>?, Int32) -> Context?
    let freeParserCtxt: @convention(c) (Context?) -> Void
    let ctxtUseOptions: @convention(c) (Context?, Int32) -> Int32
    let parseDocument: @convention(c) (Context?) -> Int32
    let sax2GetLineNumber: @convention(c) (UnsafeMutableRawPointer?) -> Int32
    let byteConsumed: @convention(c) (Context?) -> Int

    static let soname = libraryName(headerVersion: Int(LIBXML_VERSION))

    static func libraryName(headerVersion: Int) -> String { headerVersion >= 21400 ? "libxml2.so.16" : "libxml2.so.2" }

    /// nil when the library or one of its functions cannot be found. Opened once per process
    /// (the handle is never closed), and `xmlInitParser` run once, as libxml2 asks before
    /// parsers run on several threads.
    static let loaded: LibXML2? = {
        guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else { return nil }
        func symbol<T>(_ name: String, _ type: T.Type) -> T? {
            dlsym(handle, name).map { unsafeBitCast($0, to: type) }
        }
        guard let initParser = symbol("xmlInitParser", (@convention(c) () -> Void).self),
              let create = symbol("xmlCreateMemoryParserCtxt", (@convention(c) (UnsafePointer<CChar>?, Int32) -> Context?).self),
              let free = symbol("xmlFreeParserCtxt", (@convention(c) (Context?) -> Void).self),
              let options = symbol("xmlCtxtUseOptions", (@convention(c) (Context?, Int32) -> Int32).self),
              let parse = symbol("xmlParseDocument", (@convention(c) (Context?) -> Int32).self),
              let line = symbol("xmlSAX2GetLineNumber", (@convention(c) (UnsafeMutableRawPointer?) -> Int32).self),
              let consumed = symbol("xmlByteConsumed", (@convention(c) (Context?) -> Int).self) else { return nil }
        initParser()
        return LibXML2(createMemoryParserCtxt: create, freeParserCtxt: free, ctxtUseOptions: options, parseDocument: parse,
                       sax2GetLineNumber: line, byteConsumed: consumed)
    }()
}

/// The SAX2 handler's state: the open dictionaries and arrays, and the key being read.
private final class Collector {
    enum Container {
        case dictionary(pendingKey: String?)
        case array(next: Int)
    }

    struct Frame {
        var path: String
        var container: Container
    }

    let bytes: [UInt8]
    var frames: [Frame] = []
    /// Open elements, each with whether it opened a frame (so its end closes it), and for a
    /// value with a key path, the path and where its start tag begins.
    var open: [(name: String, opensFrame: Bool, path: String?, start: Int)] = []
    var spans: [String: KeyPositions.ValueSpan] = [:]
    /// Where the start tag of the element being opened begins (set with its position).
    var lastStart = 0
    var keyText: [UInt8]?
    var keyPosition = SourcePosition(line: 1, column: 1)
    var byPath: [String: SourcePosition] = [:]
    var root: SourcePosition?

    init(bytes: [UInt8]) { self.bytes = bytes }

    static func join(_ parent: String, _ key: String) -> String {
        let component = KeyPositions.pathComponent(key)
        return parent.isEmpty ? component : parent + "." + component
    }

    func start(_ name: String, at position: SourcePosition) {
        if name == "plist" && open.isEmpty {
            open.append((name, false, nil, lastStart))
            return
        }
        if name == "key" {
            if case .dictionary? = frames.last?.container {
                keyText = []
                keyPosition = position
            }
            open.append((name, false, nil, lastStart))
            return
        }
        // A value: the root, a dictionary's value (its key was recorded), or an array element.
        var path: String?
        if frames.isEmpty && root == nil {
            if name == "dict" { root = position; path = "" }
        } else if let last = frames.indices.last {
            switch frames[last].container {
            case .dictionary(let key?):
                path = Collector.join(frames[last].path, key)
                frames[last].container = .dictionary(pendingKey: nil)
            case .dictionary(nil):
                path = nil  // a value without a key: not a path the linter can name
            case .array(let index):
                let elementPath = frames[last].path + "[\(index)]"
                if byPath[elementPath] == nil { byPath[elementPath] = position }
                frames[last].container = .array(next: index + 1)
                path = elementPath
            }
        }
        let opensFrame = path != nil && (name == "dict" || name == "array")
        if opensFrame, let path {
            frames.append(Frame(path: path, container: name == "dict" ? .dictionary(pendingKey: nil) : .array(next: 0)))
        }
        open.append((name, opensFrame, path, lastStart))
    }

    func end(consumed: Int) {
        guard let element = open.popLast() else { return }
        if let path = element.path, consumed > element.start, consumed <= bytes.count {
            // libxml2's offset is past the end tag, or (an empty element) at its "/": the
            // element ends at the next ">".
            var last = consumed - 1
            while last < bytes.count && bytes[last] != UInt8(ascii: ">") { last += 1 }
            if last < bytes.count {
                // The end tag's "<"; the start tag's own for an empty element.
                var close = last
                while close > element.start && bytes[close] != UInt8(ascii: "<") { close -= 1 }
                let span = KeyPositions.ValueSpan(start: element.start, end: last + 1, closingTagStart: close > element.start ? close : nil)
                if spans[path] == nil { spans[path] = span }
            }
        }
        if element.name == "key", let text = keyText {
            keyText = nil
            let key = String(decoding: text, as: UTF8.self)
            if let last = frames.indices.last, case .dictionary = frames[last].container {
                let path = Collector.join(frames[last].path, key)
                // A repeated key keeps its first position.
                if byPath[path] == nil { byPath[path] = keyPosition }
                frames[last].container = .dictionary(pendingKey: key)
            }
        }
        if element.opensFrame { _ = frames.popLast() }
    }

    func text(_ pointer: UnsafePointer<UInt8>, _ count: Int) {
        guard keyText != nil, count > 0 else { return }
        keyText?.append(contentsOf: UnsafeBufferPointer(start: pointer, count: count))
    }

    /// The start of the element the parser has just read: libxml2's line, and the column of
    /// its `<`, found from libxml2's byte offset (just past the start tag, or at the `/` of an
    /// empty element). Tags hold no `<` (XML forbids it in attribute values), so the first one
    /// before the offset is the tag's.
    func position(line: Int, consumed: Int) -> SourcePosition {
        guard consumed > 0, consumed <= bytes.count else { return SourcePosition(line: max(line, 1), column: 1) }
        var start = consumed - 1
        while start > 0 && bytes[start] != UInt8(ascii: "<") { start -= 1 }
        guard bytes[start] == UInt8(ascii: "<") else { return SourcePosition(line: max(line, 1), column: 1) }
        lastStart = start
        // libxml2 counts lines up to the offset; a tag broken over lines started that many earlier.
        var newlinesInTag = 0
        for index in start..<consumed where bytes[index] == UInt8(ascii: "\n") { newlinesInTag += 1 }
        var lineStart = start
        while lineStart > 0 && bytes[lineStart - 1] != UInt8(ascii: "\n") { lineStart -= 1 }
        // Characters, not bytes: UTF-8 continuation bytes (10xxxxxx) do not start a column.
        var column = 1
        for index in lineStart..<start where bytes[index] & 0xC0 != 0x80 { column += 1 }
        return SourcePosition(line: max(line - newlinesInTag, 1), column: column)
    }
}

private func collector(_ context: UnsafeMutableRawPointer?) -> (Collector, xmlParserCtxtPtr)? {
    guard let context else { return nil }
    let parser = context.assumingMemoryBound(to: xmlParserCtxt.self)
    guard let state = parser.pointee._private else { return nil }
    return (Unmanaged<Collector>.fromOpaque(state).takeUnretainedValue(), parser)
}

private func elementName(_ name: UnsafePointer<xmlChar>?) -> String {
    name.map { String(cString: $0) } ?? ""
}

private let startElement: startElementNsSAX2Func = { context, name, _, _, _, _, _, _, _ in
    guard let (state, parser) = collector(context), let xml = LibXML2.loaded else { return }
    let line = Int(xml.sax2GetLineNumber(context))
    let consumed = xml.byteConsumed(parser)
    state.start(elementName(name), at: state.position(line: line, consumed: consumed))
}

private let endElement: endElementNsSAX2Func = { context, _, _, _ in
    guard let (state, parser) = collector(context), let xml = LibXML2.loaded else { return }
    state.end(consumed: xml.byteConsumed(parser))
}

private let characters: charactersSAXFunc = { context, text, length in
    guard let (state, _) = collector(context), let text, length > 0 else { return }
    state.text(text, Int(length))
}

private let ignoreError: xmlStructuredErrorFunc = { _, _ in }

/// The YAML serve's config is written in, read with the line and column of every node: block
/// mappings and sequences by indentation, flow sequences and mappings on one line (`[a, b]`,
/// `{team: payments}`), plain, single- and double-quoted scalars, `#` comments, a leading `---`.
/// Anchors, aliases, tags, multi-line scalars and several documents are refused with their line,
/// as everything else this reader does not take. (Yams, the libyaml binding, was the first choice;
/// it imports Foundation proper, which would bring libFoundation and the ICU data into every
/// atsprobe command: docs/serve.md, "Build cost".)
struct ConfigYAML {
    struct Mark: Sendable, Hashable {
        let line: Int
        let column: Int
    }

    struct Scalar {
        let string: String
        /// True for a quoted scalar: never null.
        let quoted: Bool
    }

    indirect enum Node {
        case scalar(Scalar, Mark)
        case mapping([(key: Node, value: Node)], Mark)
        case sequence([Node], Mark)

        var mark: Mark {
            switch self {
            case .scalar(_, let mark), .mapping(_, let mark), .sequence(_, let mark): mark
            }
        }
        var scalar: Scalar? { if case .scalar(let scalar, _) = self { return scalar } else { return nil } }
        var mapping: [(key: Node, value: Node)]? { if case .mapping(let pairs, _) = self { return pairs } else { return nil } }
        var sequence: [Node]? { if case .sequence(let items, _) = self { return items } else { return nil } }
        /// Empty, `~` or `null`, unquoted.
        var isNull: Bool {
            guard let scalar, !scalar.quoted else { return false }
            return ["", "~", "null", "Null", "NULL"].contains(scalar.string)
        }
    }

    struct SyntaxError: Error {
        let mark: Mark
        let message: String
    }

    private struct Line {
        let number: Int
        let indent: Int
        /// The line without indentation, comment and trailing spaces.
        let text: Substring
    }

    private var lines: [Line] = []
    private var position = 0

    /// The document in `text`; nil when it holds nothing but comments.
    static func parse(_ text: String) throws(SyntaxError) -> Node? {
        var reader = ConfigYAML()
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            var line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            let indent = line.prefix { $0 == " " }.count
            line = line.dropFirst(indent)
            if line.first == "\t" { throw SyntaxError(mark: Mark(line: number, column: indent + 1), message: "a tab in the indentation (YAML indents with spaces)") }
            let content = try stripComment(line, number: number, column: indent + 1)
            if content.isEmpty { continue }
            if content == "---" && reader.lines.isEmpty { continue }
            if content == "---" || content == "..." {
                throw SyntaxError(mark: Mark(line: number, column: indent + 1), message: "one YAML document only")
            }
            reader.lines.append(Line(number: number, indent: indent, text: content))
        }
        guard let first = reader.lines.first else { return nil }
        let node = try reader.block(indent: first.indent)
        if reader.position < reader.lines.count {
            let line = reader.lines[reader.position]
            throw SyntaxError(mark: Mark(line: line.number, column: line.indent + 1), message: "unexpected indentation")
        }
        return node
    }

    /// The line before a `#` that starts a comment (at the start or after a space, outside quotes).
    private static func stripComment(_ line: Substring, number: Int, column: Int) throws(SyntaxError) -> Substring {
        var quote: Character? = nil
        var previous: Character = " "
        var end = line.endIndex
        for index in line.indices {
            let character = line[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "#" && (previous == " " || previous == "\t") {
                end = index
                break
            }
            previous = character
        }
        var content = line[..<end]
        while let last = content.last, last == " " || last == "\t" { content = content.dropLast() }
        return content
    }

    private mutating func block(indent: Int) throws(SyntaxError) -> Node {
        let line = lines[position]
        if line.text == "-" || line.text.hasPrefix("- ") { return try sequence(indent: indent) }
        return try mapping(indent: indent)
    }

    private mutating func sequence(indent: Int) throws(SyntaxError) -> Node {
        let start = lines[position]
        var items: [Node] = []
        while position < lines.count, lines[position].indent == indent, lines[position].text == "-" || lines[position].text.hasPrefix("- ") {
            let line = lines[position]
            position += 1
            let rest = line.text.dropFirst(1).drop { $0 == " " }
            let column = line.indent + 1 + (line.text.count - rest.count)
            if rest.isEmpty {
                items.append(try nested(after: line, indent: indent))
            } else {
                if splitKey(rest) != nil {
                    throw SyntaxError(mark: Mark(line: line.number, column: column), message: "a list of mappings is not read here (write the entry as a string)")
                }
                items.append(try inline(rest, line: line.number, column: column))
            }
        }
        return .sequence(items, Mark(line: start.number, column: start.indent + 1))
    }

    private mutating func mapping(indent: Int) throws(SyntaxError) -> Node {
        let start = lines[position]
        var pairs: [(key: Node, value: Node)] = []
        while position < lines.count, lines[position].indent == indent {
            let line = lines[position]
            let keyMark = Mark(line: line.number, column: line.indent + 1)
            guard let (key, rest, restOffset) = splitKey(line.text) else {
                throw SyntaxError(mark: keyMark, message: "expected 'key: value'")
            }
            position += 1
            let keyNode = Node.scalar(try scalar(key, mark: keyMark), keyMark)
            if rest.isEmpty {
                // `key:` alone: the value is the indented block below, or a sequence at the same
                // indentation, or null.
                if position < lines.count, lines[position].indent == indent, lines[position].text == "-" || lines[position].text.hasPrefix("- ") {
                    pairs.append((keyNode, try sequence(indent: indent)))
                } else {
                    pairs.append((keyNode, try nested(after: line, indent: indent)))
                }
            } else {
                pairs.append((keyNode, try inline(rest, line: line.number, column: line.indent + 1 + restOffset)))
            }
        }
        if position < lines.count, lines[position].indent > indent {
            let line = lines[position]
            throw SyntaxError(mark: Mark(line: line.number, column: line.indent + 1), message: "unexpected indentation")
        }
        return .mapping(pairs, Mark(line: start.number, column: start.indent + 1))
    }

    /// The block indented under `line`, or a null scalar when the next line is not deeper.
    private mutating func nested(after line: Line, indent: Int) throws(SyntaxError) -> Node {
        guard position < lines.count, lines[position].indent > indent else {
            return .scalar(Scalar(string: "", quoted: false), Mark(line: line.number, column: line.indent + line.text.count + 1))
        }
        return try block(indent: lines[position].indent)
    }

    /// "key: rest" (or "key:" at the end) outside quotes and brackets: the key's text, the rest,
    /// and the rest's offset in `text`.
    private func splitKey(_ text: Substring) -> (Substring, Substring, Int)? {
        var quote: Character? = nil
        var depth = 0
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "[" || character == "{" {
                depth += 1
            } else if character == "]" || character == "}" {
                depth -= 1
            } else if character == ":", depth == 0 {
                let next = text.index(after: index)
                if next == text.endIndex || text[next] == " " {
                    let rest = text[next...].drop { $0 == " " }
                    return (text[..<index], rest, text.distance(from: text.startIndex, to: rest.startIndex))
                }
            }
            index = text.index(after: index)
        }
        return nil
    }

    /// A value on one line: a flow sequence or mapping, or a scalar.
    private func inline(_ text: Substring, line: Int, column: Int) throws(SyntaxError) -> Node {
        var cursor = FlowCursor(text: text, line: line, column: column)
        let node = try cursor.value(inFlow: false)
        cursor.skipSpaces()
        guard cursor.atEnd else { throw SyntaxError(mark: cursor.mark, message: "unexpected text after the value") }
        return node
    }

    fileprivate static func refuseSpecial(_ text: Substring, mark: Mark) throws(SyntaxError) {
        guard let first = text.first else { return }
        if first == "&" || first == "*" || first == "!" {
            throw SyntaxError(mark: mark, message: "anchors, aliases and tags are not read here")
        }
        if first == "|" || first == ">" {
            throw SyntaxError(mark: mark, message: "block scalars (| and >) are not read here: write the value on one line")
        }
    }

    private func scalar(_ text: Substring, mark: Mark) throws(SyntaxError) -> Scalar {
        var cursor = FlowCursor(text: text, line: mark.line, column: mark.column)
        guard case .scalar(let scalar, _) = try cursor.value(inFlow: false) else {
            throw SyntaxError(mark: mark, message: "a key must be a plain string")
        }
        return scalar
    }
}

/// Reads one line's value left to right, with the column of each node.
private struct FlowCursor {
    let text: Substring
    let line: Int
    let column: Int
    var index: Substring.Index

    init(text: Substring, line: Int, column: Int) {
        self.text = text
        self.line = line
        self.column = column
        index = text.startIndex
    }

    var atEnd: Bool { index >= text.endIndex }
    var mark: ConfigYAML.Mark { ConfigYAML.Mark(line: line, column: column + text.distance(from: text.startIndex, to: index)) }
    var current: Character? { atEnd ? nil : text[index] }

    mutating func skipSpaces() {
        while let character = current, character == " " { index = text.index(after: index) }
    }

    mutating func value(inFlow: Bool) throws(ConfigYAML.SyntaxError) -> ConfigYAML.Node {
        skipSpaces()
        let start = mark
        try ConfigYAML.refuseSpecial(text[index...], mark: start)
        switch current {
        case "[":
            index = text.index(after: index)
            var items: [ConfigYAML.Node] = []
            skipSpaces()
            if current == "]" { index = text.index(after: index); return .sequence(items, start) }
            while true {
                items.append(try value(inFlow: true))
                skipSpaces()
                guard let character = current else { throw ConfigYAML.SyntaxError(mark: start, message: "'[' is not closed on its line") }
                index = text.index(after: index)
                if character == "]" { return .sequence(items, start) }
                guard character == "," else { throw ConfigYAML.SyntaxError(mark: mark, message: "expected ',' or ']'") }
            }
        case "{":
            index = text.index(after: index)
            var pairs: [(key: ConfigYAML.Node, value: ConfigYAML.Node)] = []
            skipSpaces()
            if current == "}" { index = text.index(after: index); return .mapping(pairs, start) }
            while true {
                skipSpaces()
                let key = try value(inFlow: true)
                skipSpaces()
                guard current == ":" else { throw ConfigYAML.SyntaxError(mark: mark, message: "expected ':' after a key") }
                index = text.index(after: index)
                let item = try value(inFlow: true)
                pairs.append((key, item))
                skipSpaces()
                guard let character = current else { throw ConfigYAML.SyntaxError(mark: start, message: "'{' is not closed on its line") }
                index = text.index(after: index)
                if character == "}" { return .mapping(pairs, start) }
                guard character == "," else { throw ConfigYAML.SyntaxError(mark: mark, message: "expected ',' or '}'") }
            }
        case "\"":
            index = text.index(after: index)
            var out = ""
            while let character = current {
                index = text.index(after: index)
                if character == "\"" { return .scalar(ConfigYAML.Scalar(string: out, quoted: true), start) }
                if character == "\\" {
                    guard let escaped = current else { break }
                    index = text.index(after: index)
                    switch escaped {
                    case "n": out.append("\n")
                    case "t": out.append("\t")
                    case "\\", "\"", "/": out.append(escaped)
                    default: throw ConfigYAML.SyntaxError(mark: mark, message: "an escape this reader does not take: \\\(escaped)")
                    }
                } else {
                    out.append(character)
                }
            }
            throw ConfigYAML.SyntaxError(mark: start, message: "the quoted string is not closed on its line")
        case "'":
            index = text.index(after: index)
            var out = ""
            while let character = current {
                index = text.index(after: index)
                if character == "'" {
                    if current == "'" { out.append("'"); index = text.index(after: index); continue }
                    return .scalar(ConfigYAML.Scalar(string: out, quoted: true), start)
                }
                out.append(character)
            }
            throw ConfigYAML.SyntaxError(mark: start, message: "the quoted string is not closed on its line")
        default:
            // A plain scalar: to the end, or in flow to the next , ] } or ': '.
            var out = ""
            while let character = current {
                if inFlow && (character == "," || character == "]" || character == "}") { break }
                if character == ":" {
                    let next = text.index(after: index)
                    if inFlow && (next == text.endIndex || text[next] == " " || text[next] == "," || text[next] == "}") { break }
                }
                out.append(character)
                index = text.index(after: index)
            }
            while out.last == " " { out.removeLast() }
            return .scalar(ConfigYAML.Scalar(string: out, quoted: false), start)
        }
    }
}

import PropertyList
import PropertyListPositions
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `--merge` into an XML Info.plist as an edit of the file's own text (issue 25): what the merge
/// adds is inserted before the closing tag of its dictionary, in the file's indentation, and a
/// widened value replaces only its element; every other byte (key order, indentation, comments,
/// the DOCTYPE) stays as it was, so the diff shows only what was added. Where libxml2 finds
/// the file's keys (`KeyPositions.valueSpans`). The result is parsed again and must equal the
/// merged dictionary, else nil: the caller then writes the whole list again.
package enum PlistTextMerge {
    package struct Edit {
        package var range: Range<Int>
        package var text: String
    }

    package static func apply(original bytes: [UInt8], from old: [String: PropertyListValue],
                      to new: [String: PropertyListValue]) -> Data? {
        guard let positions = KeyPositions.read(xml: bytes) else { return nil }
        var edits: [Edit] = []
        guard diff(path: "", old, new, positions: positions, bytes: bytes, edits: &edits) else { return nil }
        var out = bytes
        for edit in edits.sorted(by: { $0.range.lowerBound > $1.range.lowerBound }) {
            out.replaceSubrange(edit.range, with: Array(edit.text.utf8))
        }
        let data = Data(out)
        guard let reread = try? PropertyListFile.parse(data, path: "merged"), reread.root == new else { return nil }
        return data
    }

    package static func join(_ parent: String, _ key: String) -> String {
        let component = KeyPositions.pathComponent(key)
        return parent.isEmpty ? component : parent + "." + component
    }

    /// The edits that turn dictionary `old` (at `path`) into `new`; false when that is not a
    /// matter of adding keys and replacing values (a key removed, a span not found).
    package static func diff(path: String, _ old: [String: PropertyListValue], _ new: [String: PropertyListValue],
                     positions: KeyPositions, bytes: [UInt8], edits: inout [Edit]) -> Bool {
        guard old.keys.allSatisfy({ new[$0] != nil }), let span = positions.valueSpans[path] else { return false }
        var added: [String] = []
        for key in new.keys.sorted() {
            guard let newValue = new[key] else { continue }
            guard let oldValue = old[key] else { added.append(key); continue }
            if oldValue == newValue { continue }
            let child = join(path, key)
            if let oldDict = oldValue.dictionaryValue, let newDict = newValue.dictionaryValue {
                guard diff(path: child, oldDict, newDict, positions: positions, bytes: bytes, edits: &edits) else { return false }
            } else {
                guard let valueSpan = positions.valueSpans[child], let fragment = fragment(key, newValue) else { return false }
                let indent = indentation(ofLineAt: valueSpan.start, in: bytes)
                let unit = indentUnit(parent: indentation(ofLineAt: span.start, in: bytes), child: indent)
                edits.append(Edit(range: valueSpan.start..<valueSpan.end, text: lines(fragment.value, indent: indent, unit: unit, skipFirstIndent: true)))
            }
        }
        guard !added.isEmpty else { return true }
        var entries: [(String, PropertyListValue)] = []
        for key in added { if let value = new[key] { entries.append((key, value)) } }
        let parentIndent = indentation(ofLineAt: span.start, in: bytes)
        // The indentation of the dictionary's own keys, or one step in from the dictionary.
        let firstKey = old.keys.compactMap { positions.valueSpans[join(path, $0)] }.map(\.start).min()
        var childIndent = firstKey.map { indentation(ofLineAt: $0, in: bytes) } ?? ""
        if childIndent.count <= parentIndent.count {
            // No key on a line of its own (an empty or one-line dictionary): one step in.
            childIndent = parentIndent + (parentIndent.contains(" ") ? "    " : "\t")
        }
        let unit = indentUnit(parent: parentIndent, child: childIndent)
        var block = ""
        for (key, value) in entries {
            guard let fragment = fragment(key, value) else { return false }
            block += childIndent + fragment.key + "\n" + lines(fragment.value, indent: childIndent, unit: unit, skipFirstIndent: false) + "\n"
        }
        if let close = span.closingTagStart {
            if startsLine(close, in: bytes) {
                // Before the line holding </dict>, so that line keeps its indentation.
                var lineStart = close
                while lineStart > 0 && bytes[lineStart - 1] != UInt8(ascii: "\n") { lineStart -= 1 }
                edits.append(Edit(range: lineStart..<lineStart, text: block))
            } else {
                edits.append(Edit(range: close..<close, text: "\n" + block + parentIndent))
            }
        } else {
            // <dict/>: written out with its new keys.
            edits.append(Edit(range: span.start..<span.end, text: "<dict>\n" + block + parentIndent + "</dict>"))
        }
        return true
    }

    /// `<key>KEY</key>` and the value's lines, as PropertyListFile writes them (XML escaped),
    /// the value's nested lines indented with tabs relative to the value.
    package static func fragment(_ key: String, _ value: PropertyListValue) -> (key: String, value: [String])? {
        guard let data = try? PropertyListFile.write([key: value], format: .xml) else { return nil }
        let all = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let open = all.firstIndex(of: "<dict>"), let close = all.lastIndex(of: "</dict>"), close > open + 2 else { return nil }
        let body = all[(open + 1)..<close].map { $0.hasPrefix("\t") ? String($0.dropFirst()) : $0 }
        return (body[body.startIndex], Array(body.dropFirst()))
    }

    /// The value's lines, each nested tab turned into the file's indentation step.
    package static func lines(_ value: [String], indent: String, unit: String, skipFirstIndent: Bool) -> String {
        value.enumerated().map { index, line in
            let tabs = line.prefix { $0 == "\t" }.count
            let body = line.dropFirst(tabs)
            let prefix = index == 0 && skipFirstIndent ? "" : indent + String(repeating: unit, count: tabs)
            return prefix + body
        }.joined(separator: "\n")
    }

    package static func indentation(ofLineAt offset: Int, in bytes: [UInt8]) -> String {
        var start = offset
        while start > 0 && bytes[start - 1] != UInt8(ascii: "\n") { start -= 1 }
        var end = start
        while end < offset && (bytes[end] == UInt8(ascii: " ") || bytes[end] == UInt8(ascii: "\t")) { end += 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// Whether only white space precedes `offset` on its line.
    package static func startsLine(_ offset: Int, in bytes: [UInt8]) -> Bool {
        var index = offset
        while index > 0 {
            let byte = bytes[index - 1]
            if byte == UInt8(ascii: "\n") { return true }
            if byte != UInt8(ascii: " ") && byte != UInt8(ascii: "\t") { return false }
            index -= 1
        }
        return true
    }

    /// One step of the file's indentation: what the child's indentation adds to its parent's.
    package static func indentUnit(parent: String, child: String) -> String {
        if child.hasPrefix(parent), child.count > parent.count { return String(child.dropFirst(parent.count)) }
        return child.contains(" ") ? "  " : "\t"
    }
}

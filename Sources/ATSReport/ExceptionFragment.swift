import PropertyList
import TextSupport
import TLSFacts

/// One NSExceptionDomains entry, `<key>domain</key><dict>...</dict>`, as XML to paste inside
/// NSExceptionDomains. Written by the one plist writer (`PropertyListFile.write`: keys sorted,
/// XML escaped, each value its own plist type, so an integer is `<integer>` and a real `<real>`)
/// and cut down to the entry; the reports and `diagnose`'s text show this.
package enum ExceptionFragment {
    /// The entry at the left margin, nested lines indented with tabs; "" if it cannot be written.
    package static func xml(domain: String, _ exception: PropertyListValue) -> String {
        entryLines(domain: domain, exception).map { $0 + "\n" }.joined()
    }

    /// The entry indented four spaces, tabs as four spaces (diagnose's text summary).
    package static func indented(domain: String, _ exception: PropertyListValue) -> String {
        entryLines(domain: domain, exception).map { "    " + $0.replacing("\t", with: "    ") + "\n" }.joined()
    }

    /// The lines inside the writer's outer `<dict>`, one level of indentation removed. Keys and
    /// strings are escaped first (ReportEscaping's first step): XML 1.0 cannot carry most C0
    /// controls, and a record read back may hold any.
    private static func entryLines(domain: String, _ exception: PropertyListValue) -> [Substring] {
        guard let data = try? PropertyListFile.write([visible(domain): visible(exception)], format: .xml) else { return [] }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        // Drop the XML header, <plist>, and the outer <dict> lines; keep the entry.
        guard let open = lines.firstIndex(of: "<dict>"), let close = lines.lastIndex(of: "</dict>"), open < close else { return [] }
        return lines[(open + 1)..<close].map { $0.hasPrefix("\t") ? $0.dropFirst() : $0 }
    }

    private static func visible(_ text: String) -> String { UntrustedText.escape(text, limit: 4000) }

    private static func visible(_ value: PropertyListValue) -> PropertyListValue {
        switch value {
        case .dictionary(let d): .dictionary(Dictionary(d.map { (visible($0.key), visible($0.value)) }, uniquingKeysWith: { a, _ in a }))
        case .array(let a): .array(a.map(visible))
        case .string(let s): .string(visible(s))
        case .integer, .real, .boolean, .date, .data: value
        }
    }
}

import TextSupport
import TLSFacts

/// The one escaping rule for the reports' text sinks (issue 24, item 3), each sink a function
/// here so no renderer writes record text any other way. Every key and value read from a
/// record is untrusted: it went through a JSON file anyone can edit.
///
/// - first, always, control characters (C0, DEL, C1, ESC, BEL) and bidi/invisible formatting
///   become visible escapes (`UntrustedText.escape`): a newline can never start a line of its own;
/// - then the sink's own syntax: Markdown's inline characters, a code span only for text that
///   cannot close it, a fence whose content cannot close it; HTML's five characters; CSV's
///   quoting and formula prefix (ReportCSV.cell).
public enum ReportEscaping {
    /// Plain text for a terminal or a text file.
    public static func text(_ text: String, limit: Int = 1024) -> String {
        UntrustedText.escape(text, limit: limit)
    }

    /// Markdown inline text: every character with inline meaning (and table pipes) backslash-escaped.
    public static func markdown(_ text: String) -> String {
        var out = ""
        for ch in UntrustedText.escape(text, limit: 4000) {
            if "\\`*_{}[]()<>#+!|~".contains(ch) { out.append("\\") }
            out.append(ch)
        }
        return out
    }

    /// A Markdown code span, for a key: only when the text (escaped) holds no backtick that could
    /// close it and no pipe that would split a table cell (escapes do not work inside a span);
    /// otherwise the text as escaped inline Markdown, outside any span.
    public static func markdownCode(_ text: String) -> String {
        let escaped = UntrustedText.escape(text, limit: 4000)
        guard !escaped.isEmpty, !escaped.contains(where: { $0 == "`" || $0 == "|" }) else { return markdown(text) }
        return "`" + escaped + "`"
    }

    /// The content of a fenced block: no line can close the fence (``` becomes '''), and each
    /// line is escaped on its own, so line breaks stay and nothing else can break a line. Tabs
    /// (the plist writer's indentation) become four spaces first, as in the HTML report, not \x09.
    public static func markdownFence(_ text: String) -> String {
        text.replacing("```", with: "'''").replacing("\t", with: "    ").split(separator: "\n", omittingEmptySubsequences: false)
            .map { UntrustedText.escape(String($0), limit: 4000) }.joined(separator: "\n")
    }

    /// HTML text or a quoted attribute value.
    public static func html(_ text: String) -> String { HTMLText.untrusted(text, limit: 4000) }
}

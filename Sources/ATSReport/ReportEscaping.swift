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
package enum ReportEscaping {
    /// Plain text for a terminal or a text file.
    package static func text(_ text: String, limit: Int = 1024) -> String {
        UntrustedText.escape(text, limit: limit)
    }

    /// Untrusted text (a server's, an input file's, a record's) in running Markdown: always a
    /// code span, the only inline form in which GitHub's flavour makes nothing live (no autolink
    /// of `www.` or `https://`, no `@org/team` mention, no `:emoji:` shortcode, no link, image or
    /// HTML: issue 42). The span's fence is one backtick longer than the longest run of backticks
    /// the text holds, padded with a space where the text starts or ends with one (CommonMark
    /// 6.1), so no text can close it. Empty text is an empty string. Not for a table cell
    /// (`markdownCell`): a pipe would split it.
    package static func markdown(_ text: String) -> String {
        let escaped = UntrustedText.escape(text, limit: 4000)
        guard !escaped.isEmpty else { return "" }
        var longest = 0, run = 0
        for ch in escaped {
            run = ch == "`" ? run + 1 : 0
            longest = max(longest, run)
        }
        let fence = String(repeating: "`", count: longest + 1)
        let pad = escaped.first == "`" || escaped.last == "`" || (escaped.first == " " && escaped.last == " ") ? " " : ""
        return fence + pad + escaped + pad + fence
    }

    /// `markdown` for a GFM table cell: a pipe is `\|`, which the table reads as a pipe before
    /// the span is parsed (GFM 4.10, example 200), so it cannot split the cell.
    package static func markdownCell(_ text: String) -> String {
        markdown(text).replacing("|", with: "\\|")
    }

    /// The content of a fenced block: no line can close the fence (``` becomes '''), and each
    /// line is escaped on its own, so line breaks stay and nothing else can break a line. Tabs
    /// (the plist writer's indentation) become four spaces first, as in the HTML report, not \x09.
    package static func markdownFence(_ text: String) -> String {
        text.replacing("```", with: "'''").replacing("\t", with: "    ").split(separator: "\n", omittingEmptySubsequences: false)
            .map { UntrustedText.escape(String($0), limit: 4000) }.joined(separator: "\n")
    }

    /// HTML text or a quoted attribute value.
    package static func html(_ text: String) -> String { HTMLText.untrusted(text, limit: 4000) }
}

import TextSupport
import TLSFacts

/// HTML escaping shared by every HTML page atsprobe writes (`report --format html`,
/// `app --format html`): untrusted text loses its control and bidi characters first
/// (UntrustedText), then HTML's five special characters, so it is safe as text and as a
/// quoted attribute value.
package enum HTMLText {
    /// Untrusted text as HTML text or attribute content, cut by UntrustedText at `limit`.
    package static func untrusted(_ text: String, limit: Int) -> String {
        escaped(UntrustedText.escape(text, limit: limit))
    }

    /// HTML's five special characters, for text already free of control characters.
    package static func escaped(_ text: String) -> String {
        var out = ""
        for ch in text {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(ch)
            }
        }
        return out
    }

    /// The start of a self-contained page up to its heading; `title` and `heading` are HTML
    /// already escaped, `style` the inline CSS (no script, nothing fetched).
    package static func pageStart(title: String, heading: String, style: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(title)</title>
        <style>
        \(style)
        </style>
        </head>
        <body>
        <h1>\(heading)</h1>

        """
    }
}

/// Text that came from the network (certificate names, HTTP headers, alerts): escape it before
/// it reaches a terminal, and bound its size.
package enum UntrustedText {
    /// What replaces a password (`redactingPassword`).
    package static let redactedPassword = "REDACTED"

    /// `text` (a target as typed: a URL, HOST or HOST:PORT, with or without a scheme) with the
    /// password of its userinfo replaced by `REDACTED`: RFC 3986 section 7.5, "applications should
    /// not render as clear text any data after the first colon (":") character found within a
    /// userinfo subcomponent". `https://user:secret@host/` is `https://user:REDACTED@host/`; the
    /// user name stays (it says which line it was); text without a password is returned as it is.
    /// The authority ends at the first `/`, `?` or `#` (RFC 3986 3.2); its userinfo ends at its
    /// last `@`, so a password holding an `@` is hidden whole.
    package static func redactingPassword(_ text: String) -> String {
        guard text.contains("@") else { return text }
        var start = text.startIndex
        if let separator = text.firstRange(of: "://"), !text[..<separator.lowerBound].isEmpty,
           text[..<separator.lowerBound].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) {
            start = separator.upperBound
        }
        let end = text[start...].firstIndex { "/?#".contains($0) } ?? text.endIndex
        let authority = text[start..<end]
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else { return text }
        let password = text.index(after: colon)..<at
        guard !password.isEmpty else { return text }
        return String(text[..<password.lowerBound]) + redactedPassword + String(text[password.upperBound...])
    }

    /// Control characters (C0, DEL, C1, bidi overrides) become `\xNN`/`\u{NNNN}` escapes; the
    /// result is at most `limit` characters plus a trailing "…" when cut. Backslashes are left
    /// alone so that escaping is idempotent: text escaped by the policy (reasons) and again by
    /// a renderer reads the same, and no control byte survives either way.
    /// The scalars `escape` rewrites: C0, DEL, C1, line and paragraph separators, bidi embeddings,
    /// overrides and isolates. The one list every output channel escapes (text, JSON, plist XML).
    package static func isInvisibleOrControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00..<0x20, 0x7F, 0x80..<0xA0, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: true
        default: false
        }
    }

    package static func escape(_ text: String, limit: Int = 1024) -> String {
        var out = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count >= limit { out += "…"; break }
            switch scalar.value {
            case 0x00..<0x20, 0x7F:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "\\x" + (hex.count == 1 ? "0" + hex : hex)
            case 0x80..<0xA0, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C:
                out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: out.unicodeScalars.append(scalar)
            }
            count += 1
        }
        return out
    }
}

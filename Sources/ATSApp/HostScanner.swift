/// Finds the http and https URLs and the bare host names in a file's bytes, the way `strings`
/// would see them: an executable is mostly machine code, and the names it loads sit in it as
/// plain ASCII (C strings, Swift string literals, binary-plist strings). The rules are in
/// docs/app.md, "What the app talks to"; they are deliberately narrow for bare names, which
/// are found only with a known top-level domain.
package enum HostScanner {
    /// One name found, as written.
    package struct Hit: Sendable, Hashable {
        package enum Form: String, Sendable, Hashable, Codable { case https, http, bare }
        package var form: Form
        package var host: String
        /// Only when written in the URL.
        package var port: Int?
        /// The URL or name as written (untrusted text; escape before printing).
        package var written: String
    }

    /// The top-level domains a bare name must end in: the common generic ones and the largest
    /// country codes, minus those that are also file extensions apps ship (.sh, .pl, .py, .md,
    /// .so, .rs, .cc, .ps, .mov, .zip). A URL's host needs no such list.
    static let bareTLDs: Set<String> = [
        "com", "net", "org", "io", "co", "ai", "app", "dev", "me", "tv", "info", "biz", "cloud", "online",
        "tech", "site", "xyz", "gov", "edu", "mil", "int", "eu", "us", "uk", "de", "fr", "jp", "cn", "ru",
        "br", "au", "ca", "nl", "it", "es", "se", "no", "fi", "dk", "ch", "at", "be", "nz", "za", "mx", "ar",
        "tw", "hk", "sg", "kr", "in", "id", "vn", "tr", "ua", "cz", "gr", "pt", "ie", "il", "hu", "ro", "test",
    ]

    /// Bytes that may appear in a URL (RFC 3986 unreserved, reserved and '%'), as a table:
    /// the scanner asks for every byte of executables of hundreds of megabytes.
    static let urlBytes: [Bool] = (0..<256).map { b in
        let c = UInt8(b)
        return nameBytes[b] || Array("_~:/?#[]@!$&'()*+,;=%".utf8).contains(c)
    }

    /// Letters, digits, '-' and '.': what a host name is made of.
    static let nameBytes: [Bool] = (0..<256).map { b in
        let c = UInt8(b)
        return (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
            || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "-") || c == UInt8(ascii: ".")
    }

    @inline(__always) static func isURLByte(_ b: UInt8) -> Bool { urlBytes[Int(b)] }
    @inline(__always) static func isNameByte(_ b: UInt8) -> Bool { nameBytes[Int(b)] }

    /// Scans a stream (an executable inflated piece by piece) without holding it whole: each
    /// piece is scanned up to its last separator byte (neither a URL nor a name byte, so no hit
    /// spans it), and the rest is carried into the next piece. A run of URL bytes longer than
    /// four windows (16 KiB) is cut (a URL is read up to 2048 bytes anyway).
    package struct Stream {
        private var carry: [UInt8] = []
        package private(set) var hits: [Hit] = []
        let window = 4096

        package init() {}

        package mutating func feed(_ chunk: ArraySlice<UInt8>) {
            var buffer = carry
            buffer.append(contentsOf: chunk)
            guard buffer.count > window else { carry = buffer; return }
            var cut = buffer.count - window
            while cut > 0, HostScanner.isURLByte(buffer[cut]) { cut -= 1 }
            if cut == 0 {
                // No separator but perhaps the first byte: wait for one, up to four windows; a
                // longer run of URL bytes is no URL we would read whole anyway, so cut it.
                guard buffer.count >= 4 * window else { carry = buffer; return }
                cut = buffer.count - window
            }
            hits += HostScanner.scanText(Array(buffer[..<cut]))
            carry = Array(buffer[cut...])
        }

        package mutating func finish() -> [Hit] {
            hits += HostScanner.scanText(carry)
            carry = []
            return hits
        }
    }

    /// Every hit in `bytes`, in order; UTF-16 text (a .strings file with a BOM) is read as such.
    package static func scan(_ bytes: [UInt8]) -> [Hit] {
        scanText(utf16Narrowed(bytes) ?? bytes)
    }

    static func scanText(_ text: [UInt8]) -> [Hit] {
        var hits: [Hit] = []
        var index = 0
        let n = text.count
        while index < n {
            let b = text[index]
            if b | 0x20 == UInt8(ascii: "h"), let (hit, end) = url(in: text, at: index) {
                if let hit { hits.append(hit) }
                index = end
                continue
            }
            if isNameByte(b), index == 0 || !isNameByte(text[index - 1]) {
                var end = index
                while end < n, isNameByte(text[end]) { end += 1 }
                // A name followed by "://" is a scheme (handled above), "@" an e-mail address,
                // "/" or ":" something longer we cannot judge: only free-standing names count.
                let next = end < n ? text[end] : 0
                let previous = index > 0 ? text[index - 1] : 0
                if next != UInt8(ascii: "@"), previous != UInt8(ascii: "@"), previous != UInt8(ascii: "/"),
                   let name = bareName(text[index..<end]) {
                    // "host:port" keeps its port (issue 25): a load of it goes to that port.
                    if let (port, after) = barePort(in: text, at: end) {
                        hits.append(Hit(form: .bare, host: name, port: port, written: name + ":\(port)"))
                        index = after
                        continue
                    }
                    hits.append(Hit(form: .bare, host: name, port: nil, written: name))
                }
                index = end
                continue
            }
            index += 1
        }
        return hits
    }

    /// ":PORT" right after a bare name: one to five digits, 1-65535, not followed by another
    /// name byte or ":" (a time "12:30:45", an address); the port and where scanning resumes.
    static func barePort(in text: [UInt8], at colon: Int) -> (Int, Int)? {
        guard colon < text.count, text[colon] == UInt8(ascii: ":") else { return nil }
        var end = colon + 1
        var value = 0
        while end < text.count, end - colon <= 5, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(text[end]) {
            value = value * 10 + Int(text[end] - UInt8(ascii: "0"))
            end += 1
        }
        guard end > colon + 1, (1...65535).contains(value) else { return nil }
        if end < text.count, isNameByte(text[end]) || text[end] == UInt8(ascii: ":") { return nil }
        return (value, end)
    }

    static let httpsPrefix = Array("https://".utf8)
    static let httpPrefix = Array("http://".utf8)

    /// "http://" or "https://" at `start` (any case): the hit (nil when its host is not a
    /// host, e.g. a format string "https://%@/") and where scanning resumes.
    static func url(in text: [UInt8], at start: Int) -> (Hit?, Int)? {
        // ASCII letters compare case-blind with | 0x20; ':' and '/' are unchanged by it.
        func matches(_ p: [UInt8]) -> Bool {
            guard start + p.count <= text.count else { return false }
            for i in 0..<p.count where text[start + i] | 0x20 != p[i] { return false }
            return true
        }
        let form: Hit.Form
        let schemeLength: Int
        if matches(httpsPrefix) { form = .https; schemeLength = 8 } else if matches(httpPrefix) { form = .http; schemeLength = 7 } else { return nil }
        if start > 0, isNameByte(text[start - 1]) { return nil }  // "xhttp://" is not our scheme
        var end = start + schemeLength
        while end < text.count, isURLByte(text[end]), end - start < 2048 { end += 1 }
        let written = String(decoding: text[start..<end], as: UTF8.self)
        var authority = text[(start + schemeLength)..<end]
        if let slash = authority.firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) {
            authority = authority[..<slash]
        }
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) { authority = authority[(at + 1)...] }
        var hostBytes = authority
        var port: Int?
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { return (nil, end) }
            hostBytes = authority[(authority.startIndex + 1)..<close]
            let rest = authority[(close + 1)...]
            if rest.first == UInt8(ascii: ":") { port = Int(String(decoding: rest.dropFirst(), as: UTF8.self)); if port == nil { return (nil, end) } }
            let host = String(decoding: hostBytes, as: UTF8.self).lowercased()
            guard Target.isIPv6Like(host) else { return (nil, end) }
            return (Hit(form: form, host: host, port: port, written: written), end)
        }
        if let colon = authority.lastIndex(of: UInt8(ascii: ":")) {
            let portText = String(decoding: authority[(colon + 1)...], as: UTF8.self)
            if !portText.isEmpty {
                guard let value = Int(portText), (1...65535).contains(value) else { return (nil, end) }
                port = value
            }
            hostBytes = authority[..<colon]
        }
        var host = String(decoding: hostBytes, as: UTF8.self).lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        guard isHostName(host) else { return (nil, end) }
        return (Hit(form: form, host: host, port: port, written: written), end)
    }

    /// LDH labels of 1...63 bytes, 253 in all, not starting or ending with '-'; or an IPv4 address.
    static func isHostName(_ host: String) -> Bool {
        guard !host.isEmpty, host.utf8.count <= 253 else { return false }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        for label in labels {
            guard (1...63).contains(label.utf8.count), label.first != "-", label.last != "-",
                  label.utf8.allSatisfy({ isNameByte($0) && $0 != UInt8(ascii: ".") }) else { return false }
        }
        return true
    }

    /// A free-standing token read as a host name: lower case (code writes host names so;
    /// "UIKit.framework", "MyApp.app" and "NSString.h" are not hosts), two labels or more,
    /// a known TLD, not a reverse-DNS identifier ("com.example.app": first label a TLD), and
    /// three labels when the TLD is also a bundle extension (".app").
    static func bareName(_ token: ArraySlice<UInt8>) -> String? {
        guard token.count >= 4, token.count <= 253 else { return nil }
        guard !token.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else { return nil }
        var name = String(decoding: token, as: UTF8.self)
        while name.hasSuffix(".") { name.removeLast() }  // the full stop ending a sentence
        guard isHostName(name) else { return nil }
        let labels = name.split(separator: ".")
        guard labels.count >= 2, let tld = labels.last, let first = labels.first, bareTLDs.contains(String(tld)) else { return nil }
        if bareTLDs.contains(String(first)) { return nil }
        if tld == "app" && labels.count < 3 { return nil }
        if labels.allSatisfy({ $0.allSatisfy(\.isNumber) }) { return nil }
        return name
    }

    /// UTF-16 text (BOM first) narrowed to bytes, non-ASCII units as NUL; nil for anything else.
    static func utf16Narrowed(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count >= 2 else { return nil }
        let little: Bool
        if bytes[0] == 0xFF && bytes[1] == 0xFE { little = true } else if bytes[0] == 0xFE && bytes[1] == 0xFF { little = false } else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count / 2)
        var i = 2
        while i + 1 < bytes.count {
            let unit = little ? UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8 : UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1])
            out.append(unit < 0x80 ? UInt8(unit) : 0)
            i += 2
        }
        return out
    }
}

import TLSFacts

extension Target {
    /// Hex digits, colons and dots (an IPv4 tail): enough to tell "[::1]" from "[%@]".
    static func isIPv6Like(_ text: String) -> Bool {
        text.contains(":") && text.utf8.allSatisfy { $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f")) }
    }
}

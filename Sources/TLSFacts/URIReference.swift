/// RFC 3986 reference resolution for redirects, and the one check every path passes before it
/// is written into a request line. Location values are untrusted: the server chooses them.
package enum URIReference {
    /// True for C0 controls (CR, LF, NUL among them), DEL and C1 controls: none may reach the wire.
    package static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// The scheme of an absolute reference ("https" in "HTTPS://x"), lower-cased; nil for a
    /// relative one. RFC 3986 3.1: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) before the first ':'.
    package static func scheme(of reference: String) -> String? {
        let bytes = Array(reference.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0 else { return nil }
        func letter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
        guard letter(bytes[0]), bytes[1..<colon].allSatisfy({ letter($0) || (0x30...0x39).contains($0) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E })
        else { return nil }
        return String(decoding: bytes[..<colon], as: UTF8.self).lowercased()
    }

    /// RFC 3986 5.2.4: "/a/b/../c/./d" is "/a/c/d"; "../../up" never climbs above the root.
    package static func removingDotSegments(_ path: String) -> String {
        var input = Substring(path)
        var output: [Substring] = []
        var trailingSlash = false
        // Segment by segment, which is the RFC's loop on whole "/segment" steps.
        let absolute = input.hasPrefix("/")
        if absolute { input = input.dropFirst() }
        let segments = input.split(separator: "/", omittingEmptySubsequences: false)
        for (index, segment) in segments.enumerated() {
            let last = index == segments.count - 1
            switch segment {
            case ".":
                trailingSlash = last
            case "..":
                if !output.isEmpty { output.removeLast() }
                trailingSlash = last
            default:
                output.append(segment)
                trailingSlash = false
            }
        }
        var result = (absolute ? "/" : "") + output.joined(separator: "/")
        if trailingSlash && !result.hasSuffix("/") { result += "/" }
        return result
    }

    /// Resolves `reference` against a base path-and-query ("/dir/page?x") on the same
    /// authority (RFC 3986 5.2.2, for references with no scheme and no authority). Nil when
    /// the reference holds a control character.
    package static func resolve(_ reference: String, againstPath base: String) -> String? {
        guard !reference.unicodeScalars.contains(where: isControl) else { return nil }
        var reference = Substring(reference)
        if let hash = reference.firstIndex(of: "#") { reference = reference[..<hash] }
        let (referencePath, referenceQuery) = splitQuery(reference)
        let (basePath, baseQuery) = splitQuery(Substring(base))
        let path: String
        var query = referenceQuery
        if referencePath.isEmpty {
            path = basePath.isEmpty ? "/" : String(basePath)
            if referenceQuery == nil { query = baseQuery }
        } else if referencePath.hasPrefix("/") {
            path = removingDotSegments(String(referencePath))
        } else {
            // 5.2.3 merge: the base path up to its last "/", then the reference.
            let directory = basePath.lastIndex(of: "/").map { basePath[...$0] } ?? "/"
            path = removingDotSegments(String(directory) + referencePath)
        }
        return requestTarget(path + (query.map { "?" + $0 } ?? ""))
    }

    /// A path and query safe for a request line: C0 controls and DEL refused (nil), and space, non-ASCII (C1 included)
    /// and the characters RFC 3986 never allows raw percent-encoded, as browsers send them.
    /// Existing escapes are kept, so encoding twice changes nothing.
    package static func requestTarget(_ pathAndQuery: String) -> String? {
        guard !pathAndQuery.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return nil }
        var out = ""
        for byte in pathAndQuery.utf8 {
            if byte > 0x20 && byte < 0x7F && !Self.unsafeASCII.contains(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out.isEmpty ? "/" : out
    }

    private static let unsafeASCII: Set<UInt8> = Set("\"<>\\^`{|}".utf8)

    private static func splitQuery(_ text: Substring) -> (Substring, Substring?) {
        guard let mark = text.firstIndex(of: "?") else { return (text, nil) }
        return (text[..<mark], text[text.index(after: mark)...])
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport
import TLSFacts

/// The GET that follows a handshake, and the parsing of the response head.
enum HTTPHead {
    static let headLimit = 16 * 1024

    static func request(for target: Target) -> String {
        let host = target.host.contains(":") ? "[\(target.host)]" : target.host
        let hostHeader = target.port == 443 ? host : "\(host):\(target.port)"
        // The path may come from a Location header: no control byte reaches the wire, whatever
        // path a caller sets (URIReference refuses controls and percent-encodes the rest).
        let path = URIReference.requestTarget(target.path) ?? "/"
        return "GET \(path) HTTP/1.1\r\nHost: \(hostHeader)\r\nUser-Agent: atsprobe\r\nAccept: */*\r\nConnection: close\r\n\r\n"
    }

    /// Parses "HTTP/1.1 301 Moved\r\nLocation: ...\r\n\r\n". The text is untrusted and bounded by the caller.
    static func parse(_ head: [UInt8], complete: Bool) -> HTTPExchange {
        // Lines are found in the bytes and only the status line and the headers read here are
        // decoded: splitting the decoded text (Character by Character) cost 170,000 instructions
        // per response, 1.7 million per audit target (callgrind, docs/performance.md). Each
        // line read is judged as text exactly as before.
        let lines = lineRanges(head)
        let statusLine = String(decoding: head[lines[0]], as: UTF8.self)
        guard !statusLine.isEmpty else {
            return HTTPExchange(statusCode: nil, failure: "no response")
        }
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), parts[1].utf8.count == 3,
              parts[1].utf8.allSatisfy({ (0x30...0x39).contains($0) }), let code = Int(parts[1]) else {
            return HTTPExchange(statusCode: nil, failure: "malformed status line \"\(UntrustedText.escape(statusLine, limit: 80))\"")
        }
        var exchange = HTTPExchange(statusCode: code, reason: parts.count > 2 ? String(parts[2].prefix(1024)) : nil)
        for range in lines.dropFirst() where mayName(head[range], anyOf: wantedHeaders) {
            let line = String(decoding: head[range], as: UTF8.self)
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingWhitespace()
            switch name {
            case "location" where exchange.location == nil: exchange.location = String(value.prefix(4096))
            case "server" where exchange.server == nil: exchange.server = String(value.prefix(1024))
            default: break
            }
        }
        if !complete { exchange.failure = "response head incomplete" }
        return exchange
    }

    /// The headers a response is read for.
    static let wantedHeaders = ["location", "server"].map { Array($0.utf8) }

    /// The head's lines: split at CRLF, or at LF when there is no CRLF (as the text was split).
    /// At least one (possibly empty) line.
    static func lineRanges(_ head: [UInt8]) -> [Range<Int>] {
        let crlf = head.indices.dropLast().contains { head[$0] == 0x0D && head[$0 + 1] == 0x0A }
        var lines: [Range<Int>] = []
        var start = 0, index = 0
        while index < head.count {
            if crlf, head[index] == 0x0D, index + 1 < head.count, head[index + 1] == 0x0A {
                lines.append(start..<index)
                index += 2
                start = index
            } else if !crlf, head[index] == 0x0A {
                lines.append(start..<index)
                index += 1
                start = index
            } else {
                index += 1
            }
        }
        lines.append(start..<head.count)
        return lines
    }

    /// Whether the bytes before the line's first colon are one of `names`, ignoring ASCII case:
    /// a line that fails this cannot name one of them as text either (no other character
    /// lowercases to these letters), so it need not be decoded.
    static func mayName(_ line: ArraySlice<UInt8>, anyOf names: [[UInt8]]) -> Bool {
        guard let colon = line.firstIndex(of: 0x3A) else { return false }
        let name = line[..<colon]
        return names.contains { wanted in
            wanted.count == name.count && zip(wanted, name).allSatisfy { $0 == ($1 | 0x20) }
        }
    }

    /// Index just past "\r\n\r\n" (or "\n\n"), when the head is complete.
    static func endOfHead(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 2 else { return nil }
        for index in 1..<bytes.count where bytes[index] == 0x0A {
            if bytes[index - 1] == 0x0A { return index + 1 }
            if index >= 3, bytes[index - 1] == 0x0D, bytes[index - 2] == 0x0A, bytes[index - 3] == 0x0D { return index + 1 }
        }
        return nil
    }
}

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
        let text = String(decoding: head, as: UTF8.self)
        var lines = text.components(separatedBy: "\r\n")
        if lines.count == 1 { lines = text.components(separatedBy: "\n") }
        guard let statusLine = lines.first, !statusLine.isEmpty else {
            return HTTPExchange(statusCode: nil, failure: "no response")
        }
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), parts[1].utf8.count == 3,
              parts[1].utf8.allSatisfy({ (0x30...0x39).contains($0) }), let code = Int(parts[1]) else {
            return HTTPExchange(statusCode: nil, failure: "malformed status line \"\(UntrustedText.escape(statusLine, limit: 80))\"")
        }
        var exchange = HTTPExchange(statusCode: code, reason: parts.count > 2 ? String(parts[2].prefix(1024)) : nil)
        for line in lines.dropFirst() {
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

import Testing
import TextSupport
import TLSFacts
import Foundation
@testable import ATSProbe

/// The response head is the server's text: parsed defensively, every field bounded.
@Suite("HTTP response head")
struct HTTPHeadTests {
    @Test func statusLocationAndServer() {
        let head = Array("HTTP/1.1 301 Moved Permanently\r\nServer: nginx\r\nLocation:  https://example.com/x \r\n\r\n".utf8)
        #expect(HTTPHead.endOfHead(head) == head.count)
        let exchange = HTTPHead.parse(head, complete: true)
        #expect(exchange == HTTPExchange(statusCode: 301, reason: "Moved Permanently", location: "https://example.com/x", server: "nginx"))
    }

    @Test(arguments: ["HTTP/1.1 -01 Odd", "HTTP/1.1 +20 Odd", "HTTP/1.1 2x0 Odd", "HTTP/1.1 1234 Long", "HTTP/1.1", "ICY 200 OK", "\u{0}"])
    func malformedStatusLines(line: String) {
        let exchange = HTTPHead.parse(Array((line + "\r\n\r\n").utf8), complete: true)
        #expect(exchange.statusCode == nil)
        #expect(exchange.failure?.hasPrefix("malformed status line") == true || exchange.failure == "no response")
    }

    /// Seeded random heads built from the tokens a head is made of: nothing traps, a status
    /// code is always three digits, and every kept field stays within its bound.
    @Test func randomHeadsStayBounded() {
        let tokens = ["HTTP/1.1 ", "HTTP/1.0", "200", "301", "-1", "999", " ", ":", "\r\n", "\n", "\r",
                      "Location", "location", "Server", "SERVER", "https://a/", String(repeating: "x", count: 5000),
                      "\u{1B}[31m", "\u{0}", "\u{FFFD}", "é", "\r\n\r\n"]
        for (bytes, complete) in Self.randomHeads(seed: 0x5EED, tokens: tokens, maxTokens: 12) {
            _ = HTTPHead.endOfHead(bytes)
            let exchange = HTTPHead.parse(bytes, complete: complete)
            if let code = exchange.statusCode { #expect((0...999).contains(code), "\(code)") }
            #expect((exchange.reason?.count ?? 0) <= 1024)
            #expect((exchange.location?.count ?? 0) <= 4096)
            #expect((exchange.server?.count ?? 0) <= 1024)
        }
    }

    /// 5,000 seeded random heads: after one of `prefixes`, 1 to `maxTokens` of `tokens`, with one
    /// byte changed in about a quarter of them; each read as complete or not at random.
    static func randomHeads(seed: UInt64, tokens: [String], maxTokens: Int, prefixes: [String] = [""]) -> [(bytes: [UInt8], complete: Bool)] {
        var state = seed
        func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 33
        }
        return (0..<5000).map { _ in
            var text = prefixes[Int(next() % UInt64(prefixes.count))]
            for _ in 0..<(1 + next() % UInt64(maxTokens)) { text += tokens[Int(next() % UInt64(tokens.count))] }
            var bytes = Array(text.utf8)
            if next() % 4 == 0, !bytes.isEmpty { bytes[Int(next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: next()) }
            return (bytes, next() % 2 == 0)
        }
    }

    /// The head as it was read before lines were found in the bytes: the whole text decoded,
    /// split, and every line lowercased. The byte reading must give the same exchange.
    static func parsedAsText(_ head: [UInt8], complete: Bool) -> HTTPExchange {
        let text = String(decoding: head, as: UTF8.self)
        var lines = text.components(separatedBy: "\r\n")
        if lines.count == 1 { lines = text.components(separatedBy: "\n") }
        guard let statusLine = lines.first, !statusLine.isEmpty else { return HTTPExchange(statusCode: nil, failure: "no response") }
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), parts[1].utf8.count == 3,
              parts[1].utf8.allSatisfy({ (0x30...0x39).contains($0) }), let code = Int(parts[1]) else {
            return HTTPExchange(statusCode: nil, failure: "malformed status line \"\(UntrustedText.escape(statusLine, limit: 80))\"")
        }
        var exchange = HTTPExchange(statusCode: code, reason: parts.count > 2 ? String(parts[2].prefix(1024)) : nil)
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...].trimmingWhitespace()
            switch line[..<colon].lowercased() {
            case "location" where exchange.location == nil: exchange.location = String(value.prefix(4096))
            case "server" where exchange.server == nil: exchange.server = String(value.prefix(1024))
            default: break
            }
        }
        if !complete { exchange.failure = "response head incomplete" }
        return exchange
    }

    /// Seeded random heads, with the characters that make text and bytes differ (combining
    /// marks after a colon, the Kelvin sign that lowercases to "k", CR without LF, invalid
    /// UTF-8): the byte reading gives what the text reading gave, head for head.
    @Test func readingTheBytesGivesWhatReadingTheTextGave() {
        let tokens = ["HTTP/1.1 ", "HTTP/1.0 ", "200", "301 ", "Moved", " ", ":", ":\u{301}", "\r\n", "\n", "\r",
                      "Location", "LOCATION", "location:", "Server", "sErVeR", "\u{212A}", "https://a/b", "  \t",
                      "\u{1B}[31m", "\u{0}", "é", "\u{130}", "\r\n\r\n", String(repeating: "y", count: 1100)]
        let heads = Self.randomHeads(seed: 0xB17E5, tokens: tokens, maxTokens: 14, prefixes: ["", "", "HTTP/1.1 302 Found\r\n"])
        for (bytes, complete) in heads {
            #expect(HTTPHead.parse(bytes, complete: complete) == Self.parsedAsText(bytes, complete: complete), "\(bytes)")
        }
    }
}

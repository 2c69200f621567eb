import Testing
import TLSFacts
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
        var state: UInt64 = 0x5EED
        func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 33
        }
        let tokens = ["HTTP/1.1 ", "HTTP/1.0", "200", "301", "-1", "999", " ", ":", "\r\n", "\n", "\r",
                      "Location", "location", "Server", "SERVER", "https://a/", String(repeating: "x", count: 5000),
                      "\u{1B}[31m", "\u{0}", "\u{FFFD}", "é", "\r\n\r\n"]
        for _ in 0..<5000 {
            var text = ""
            for _ in 0..<(1 + next() % 12) { text += tokens[Int(next() % UInt64(tokens.count))] }
            var bytes = Array(text.utf8)
            if next() % 4 == 0, !bytes.isEmpty { bytes[Int(next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: next()) }
            _ = HTTPHead.endOfHead(bytes)
            let exchange = HTTPHead.parse(bytes, complete: next() % 2 == 0)
            if let code = exchange.statusCode { #expect((0...999).contains(code), "\(code)") }
            #expect((exchange.reason?.count ?? 0) <= 1024)
            #expect((exchange.location?.count ?? 0) <= 4096)
            #expect((exchange.server?.count ?? 0) <= 1024)
        }
    }
}

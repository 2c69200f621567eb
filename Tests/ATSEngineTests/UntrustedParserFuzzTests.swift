import Foundation
import Testing
import TestSupport
import PropertyList
import ATSAdvice
@testable import ATSEngine
import ATSPolicy
@testable import ATSProbe
import TextSupport
import TLSFacts

/// A fuzz target for every parser that reads bytes from outside (docs/robustness.md, "Fuzzing"):
/// HTTP response heads, HTTP/2 responses, Location values, target lines and URLs, CT log lists,
/// property lists. (Zip entry names: ATSAppTests' ZipNameFuzzTests, where the zip reader is.)
/// Each run mutates a fixed seed corpus with a fixed seed, so a failure reproduces; surviving
/// (no trap, no hang) is the first assertion, and each target also checks what its parser must
/// always guarantee. scripts/fuzz runs longer (`FuzzRun`: more mutants, another seed, or a time bound).
@Suite("Fuzzing the untrusted-bytes parsers")
struct UntrustedParserFuzzTests {
    /// 1,500 mutants per target in the suite (about 0.3 s); scripts/fuzz sets other bounds.
    static func makeRun(_ name: String) -> FuzzRun {
        FuzzRun(name, defaultIterations: 1500, environment: ProcessInfo.processInfo.environment)
    }

    /// Runs `body` on the run's mutants of the corpus, cycling through it.
    static func fuzz(_ name: String, _ corpus: [[UInt8]], salt: UInt64, _ body: ([UInt8]) throws -> Void) rethrows {
        let run = makeRun(name)
        var random = run.random(salt: salt)
        var index = 0
        while run.allows(index) {
            try body(ByteMutator.mutate(corpus[index % corpus.count], &random))
            index += 1
        }
        run.report(index)
    }

    @Test func httpResponseHeads() {
        let corpus = [
            "HTTP/1.1 301 Moved Permanently\r\nLocation: https://example.test/next\r\nServer: x\r\n\r\n",
            "HTTP/1.1 200 OK\nServer: y\n\n", "HTTP/1.0 302 Found\r\nLocation: ../up?q=1\r\n\r\nbody",
        ].map { Array($0.utf8) }
        Self.fuzz("HTTP/1.1 heads", corpus, salt: 1) { bytes in
            let end = HTTPHead.endOfHead(bytes)
            #expect(end.map { $0 <= bytes.count } ?? true)
            let exchange = HTTPHead.parse(Array(bytes.prefix(HTTPHead.headLimit)), complete: end != nil)
            if let code = exchange.statusCode { #expect((0...999).contains(code)) }
            #expect((exchange.location?.utf8.count ?? 0) <= 4096 * 4)
            // Whatever parsed, its failure text is escaped: no control byte in it.
            #expect(!(exchange.failure ?? "").unicodeScalars.contains { $0.value < 0x20 })
        }
    }

    /// A server's whole HTTP/2 answer, fed to the client's exchange in pieces: frames, padding,
    /// CONTINUATION, HPACK (static-table names with literal values), `:status` forms.
    @Test func http2Responses() async {
        func frame(_ type: UInt8, _ flags: UInt8, _ stream: UInt8, _ payload: [UInt8]) -> [UInt8] {
            [0, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF), type, flags, 0, 0, 0, stream] + payload
        }
        // HPACK (RFC 7541 appendix A): 0x88 is ":status: 200"; 0x08 a literal ":status" value;
        // 0x0F 0x1F a literal "location" value, 0x0F 0x27 a literal "server" value.
        func literal(_ prefix: [UInt8], _ value: String) -> [UInt8] { prefix + [UInt8(value.utf8.count)] + Array(value.utf8) }
        let settings = frame(4, 0, 0, [0, 3, 0, 0, 0, 100])
        let location = literal([0x0F, 0x1F], "https://example.test/next"), server = literal([0x0F, 0x27], "h2 test")
        let corpus: [[UInt8]] = [
            settings + frame(1, 0x04, 1, [0x88] + server) + frame(0, 0x01, 1, Array("ok".utf8)),
            settings + frame(1, 0x04, 1, literal([0x08], "301") + location),
            frame(1, 0x00, 1, literal([0x08], "103")) + frame(9, 0x04, 1, []) + frame(1, 0x0C, 1, [2] + literal([0x08], "404") + [0, 0]),
            frame(6, 0, 0, [UInt8](repeating: 0, count: 8)) + frame(1, 0x24, 1, [0, 0, 0, 3, 16] + literal([0x08], "+99")),
            frame(1, 0x04, 1, literal([0x08], "-01")) + frame(7, 0, 0, [0, 0, 0, 1, 0, 0, 0, 0]),
            frame(3, 0, 1, [0, 0, 0, 2]),
        ]
        let run = Self.makeRun("HTTP/2 responses")
        var random = run.random(salt: 7)
        var index = 0, withStatus = 0
        while run.allows(index) {
            let bytes = ByteMutator.mutate(corpus[index % corpus.count], &random)
            index += 1
            // Delivered in pieces of 1 to 64 bytes, as a socket might, then the peer closes.
            var pieces: [[UInt8]] = []
            var offset = 0
            while offset < bytes.count {
                let count = min(bytes.count - offset, 1 + Int(random.next() % 64))
                pieces.append(Array(bytes[offset..<(offset + count)]))
                offset += count
            }
            let feed = PieceFeed(pieces)
            let exchange = HTTP2Exchange(write: { _ in nil }, read: { .success(feed.next()) })
            let result = await exchange.run(target: Target(host: "host.test", port: 443, path: "/"))
            // The in-memory connection never suspends, so without this the loop would hold one of
            // the two cooperative threads for its whole run, and the probe tests alongside would
            // miss their deadlines waiting for one.
            await Task.yield()
            if let code = result.statusCode {
                #expect((100...599).contains(code), "status \(code) from \(bytes)")
            } else {
                #expect(result.failure != nil)
            }
            #expect((result.location?.count ?? 0) <= 4096 && (result.server?.count ?? 0) <= 1024)
            if result.statusCode != nil { withStatus += 1 }
        }
        run.report(index, detail: "\(withStatus) with a status")
    }

    @Test func locationValues() {
        let base = Target(host: "host.test", port: 443, path: "/dir/page?x=1")
        let corpus = ["../../up", "/abs/./x", "//other.test/p", "https://other.test:8443/a/../b#f", "?q", "g;x=1/../y", ""]
            .map { Array($0.utf8) }
        Self.fuzz("Locations", corpus, salt: 2) { bytes in
            let location = String(decoding: bytes, as: UTF8.self)
            guard let next = Redirects.resolve(location, from: base) else { return }
            // What may reach a request line: no control, no space, no raw non-ASCII.
            #expect(next.path.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "\(location.debugDescription) -> \(next.path.debugDescription)")
            #expect(next.path.hasPrefix("/"))
            let pathOnly = next.path.prefix { $0 != "?" }  // a query may hold "..": RFC 3986 leaves it
            #expect(!pathOnly.split(separator: "/").contains(".."), "dot segments left in \(next.path)")
            let request = HTTPHead.request(for: next)
            #expect(request.components(separatedBy: "\r\n").count == 7, "the request grew a line: \(request.debugDescription)")
        }
    }

    @Test func targetLinesAndURLs() {
        let corpus = ["example.com", "https://example.com:8443/p?q#f", "[2001:db8::1]:443", "http://bücher.example/x",
                      "host:0", "127.0.0.1", "https://a.b/\u{202E}x"].map { Array($0.utf8) }
        Self.fuzz("targets", corpus, salt: 3) { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            do throws(TargetParseError) {
                let target = try Target(parsing: text)
                #expect((1...65535).contains(target.port))
                #expect(target.url.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "\(text.debugDescription) -> \(target.url.debugDescription)")
            } catch {
                #expect(!error.description.unicodeScalars.contains(where: UntrustedText.isInvisibleOrControl), "raw control in \(error.description.debugDescription)")
            }
        }
    }

    @Test func ctLogLists() {
        let key = Data(repeating: 7, count: 32).base64EncodedString()
        let corpus = [
            #"{"version": "1", "operators": [{"name": "A", "logs": [{"description": "A", "log_id": "\#(key)", "key": "AA==", "state": {"usable": {"timestamp": "2024-01-01T00:00:00Z"}}}]}]}"#,
            #"{"operators": [{"name": "B", "logs": [{"log_id": "\#(key)", "state": {"retired": {"timestamp": "2025-06-30T12:00:00.5Z"}}}]}]}"#,
        ].map { Array($0.utf8) }
        Self.fuzz("CT log lists", corpus, salt: 4) { bytes in
            do throws(CTLogListError) {
                _ = try CTLogList(appleLogListJSON: Data(bytes), source: "fuzz.json")
            } catch {
                #expect(!error.description.contains("\n"))
            }
        }
    }

    @Test func propertyLists() throws {
        let root: [String: PropertyListValue] = [
            "NSAppTransportSecurity": ["NSExceptionDomains": ["example.com": ["NSIncludesSubdomains": true,
                                                                             "NSExceptionMinimumTLSVersion": "TLSv1.2"]]],
            "Nested": [[["deep": [1, 2]]]],
        ]
        let corpus = [Array(try PropertyListFile.write(root, format: .xml)), Array(try PropertyListFile.write(root, format: .binary))]
        Self.fuzz("property lists", corpus, salt: 5) { bytes in
            guard let document = try? PropertyListFile.parse(Data(bytes), path: "fuzz.plist") else { return }
            _ = ATSLinter.lint(document)
        }
    }
}

/// The bytes a fuzzed server sends, handed out a piece per read; empty once they run out (the
/// peer closed).
private final class PieceFeed: @unchecked Sendable {
    private let lock = NSLock()
    private var pieces: [[UInt8]]

    init(_ pieces: [[UInt8]]) { self.pieces = pieces }

    func next() -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        return pieces.isEmpty ? [] : pieces.removeFirst()
    }
}

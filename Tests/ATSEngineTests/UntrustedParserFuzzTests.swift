import Foundation
import Testing
import TestSupport
import PropertyList
import ATSAdvice
@testable import ATSEngine
import ATSPolicy
@testable import ATSProbe
import TLSFacts

/// A fuzz target for every parser that reads bytes from outside (docs/robustness.md, "Fuzzing"):
/// HTTP response heads, Location values, target lines and URLs, CT log lists, property lists.
/// Each run mutates a fixed seed corpus with a fixed seed, so a failure reproduces; surviving
/// (no trap, no hang) is the first assertion, and each target also checks what its parser must
/// always guarantee. `ATSPROBE_FUZZ_ITERATIONS` runs longer (scripts/fuzz).
@Suite("Fuzzing the untrusted-bytes parsers")
struct UntrustedParserFuzzTests {
    static let iterations = ProcessInfo.processInfo.environment["ATSPROBE_FUZZ_ITERATIONS"].flatMap(Int.init) ?? 1500
    static let seed = ProcessInfo.processInfo.environment["ATSPROBE_FUZZ_SEED"].flatMap(UInt64.init) ?? 15


    /// Byte strings that matter to one format or another: line ends, NUL, markup, escapes,
    /// dot segments, C1 and bidi in UTF-8, a byte-order mark, broken UTF-8.
    static let dictionary: [[UInt8]] = [
        [0x0D, 0x0A], [0x0A], [0x00], [0x7F], Array("<!--".utf8), Array("-->".utf8), Array("<![CDATA[".utf8), Array("]]>".utf8),
        Array("</array>".utf8), Array("<array>".utf8), Array("../".utf8), Array("./".utf8), Array("//".utf8), Array("%".utf8),
        Array("%0d%0a".utf8), [0xC2, 0x9B], [0xE2, 0x80, 0xAE], [0xEF, 0xBB, 0xBF], [0xFF], [0xC0, 0x80], Array(":".utf8),
        Array("[".utf8), Array("]".utf8), Array("?".utf8), Array("#".utf8), Array("@".utf8), Array("\"".utf8), Array("{".utf8),
        Array("}".utf8), Array("99999999999999999999".utf8), Array(" ".utf8), Array("\t".utf8), Array("HTTP/1.1 ".utf8),
    ]

    /// One mutation of `seed`: flip, cut, splice, insert a dictionary word, or repeat a slice.
    static func mutate(_ seed: [UInt8], _ random: inout SeededRandom) -> [UInt8] {
        var bytes = seed
        for _ in 0..<(1 + Int(random.next() % 3)) {
            let position = bytes.isEmpty ? 0 : Int(random.next() % UInt64(bytes.count + 1))
            switch random.next() % 5 {
            case 0 where !bytes.isEmpty:
                bytes[min(position, bytes.count - 1)] = UInt8(truncatingIfNeeded: random.next())
            case 1:
                bytes = Array(bytes.prefix(position))
            case 2:
                bytes.insert(contentsOf: dictionary[Int(random.next() % UInt64(dictionary.count))], at: position)
            case 3 where !bytes.isEmpty:
                let start = Int(random.next() % UInt64(bytes.count)), length = Int(random.next() % 128)
                let slice = bytes[start..<min(bytes.count, start + length)]
                for _ in 0..<(1 + Int(random.next() % 8)) { bytes.insert(contentsOf: slice, at: min(position, bytes.count)) }
            default:
                if !bytes.isEmpty { bytes.remove(at: min(position, bytes.count - 1)) }
            }
        }
        return bytes
    }

    /// Runs `body` on `iterations` mutants of the corpus, cycling through it.
    static func fuzz(_ corpus: [[UInt8]], salt: UInt64, _ body: ([UInt8]) throws -> Void) rethrows {
        var random = SeededRandom(state: seed &* 1_000_003 &+ salt)
        for index in 0..<iterations {
            try body(mutate(corpus[index % corpus.count], &random))
        }
    }

    @Test func httpResponseHeads() {
        let corpus = [
            "HTTP/1.1 301 Moved Permanently\r\nLocation: https://example.test/next\r\nServer: x\r\n\r\n",
            "HTTP/1.1 200 OK\nServer: y\n\n", "HTTP/1.0 302 Found\r\nLocation: ../up?q=1\r\n\r\nbody",
        ].map { Array($0.utf8) }
        Self.fuzz(corpus, salt: 1) { bytes in
            let end = HTTPHead.endOfHead(bytes)
            #expect(end.map { $0 <= bytes.count } ?? true)
            let exchange = HTTPHead.parse(Array(bytes.prefix(HTTPHead.headLimit)), complete: end != nil)
            if let code = exchange.statusCode { #expect((0...999).contains(code)) }
            #expect((exchange.location?.utf8.count ?? 0) <= 4096 * 4)
            // Whatever parsed, its failure text is escaped: no control byte in it.
            #expect(!(exchange.failure ?? "").unicodeScalars.contains { $0.value < 0x20 })
        }
    }

    @Test func locationValues() {
        let base = Target(host: "host.test", port: 443, path: "/dir/page?x=1")
        let corpus = ["../../up", "/abs/./x", "//other.test/p", "https://other.test:8443/a/../b#f", "?q", "g;x=1/../y", ""]
            .map { Array($0.utf8) }
        Self.fuzz(corpus, salt: 2) { bytes in
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
        Self.fuzz(corpus, salt: 3) { bytes in
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
        Self.fuzz(corpus, salt: 4) { bytes in
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
        Self.fuzz(corpus, salt: 5) { bytes in
            guard let document = try? PropertyListFile.parse(Data(bytes), path: "fuzz.plist") else { return }
            _ = ATSLinter.lint(document)
        }
    }
}

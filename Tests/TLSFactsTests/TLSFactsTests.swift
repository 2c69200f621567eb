import Testing
import TextSupport
import TLSFacts

/// The shared values that parse user input and network text.
@Suite struct TLSFactsTests {
    @Test func untrustedTextEscapesControlsAndIsIdempotent() {
        let hostile = "evil\u{1B}[31mred\u{7}\u{202E}gnp.exe\r\n"
        let once = UntrustedText.escape(hostile)
        #expect(once == "evil\\x1B[31mred\\x07\\u{202E}gnp.exe\\x0D\\x0A")
        #expect(UntrustedText.escape(once) == once)
        #expect(!once.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F })
        #expect(UntrustedText.escape(String(repeating: "a", count: 50), limit: 10) == "aaaaaaaaaa…")
    }

    @Test(arguments: [
        ("example.com", "https", "example.com", 443, "/"),
        ("EXAMPLE.com:8443", "https", "example.com", 8443, "/"),
        ("http://example.com/a?b=1#frag", "http", "example.com", 80, "/a?b=1"),
        ("https://[::1]:8443/x", "https", "::1", 8443, "/x"),
        ("::1", "https", "::1", 443, "/"),
        ("127.0.0.1:1", "https", "127.0.0.1", 1, "/"),
        ("https://bücher.example/", "https", "xn--bcher-kva.example", 443, "/"),
        ("münchen.test", "https", "xn--mnchen-3ya.test", 443, "/"),
    ])
    func targetsParse(input: String, scheme: String, host: String, port: Int, path: String) throws {
        let target = try Target(parsing: input)
        #expect(target.scheme.rawValue == scheme)
        #expect(target.host == host)
        #expect(target.port == port)
        #expect(target.path == path)
    }

    @Test(arguments: ["", "  ", "host:0", "host:65536", "host:-1", "ftp://host", "https://", "[::1", "[zz]:1",
                      "a..b", "bad host", "user@host", "-lead.example", "host\u{0}x", "1:2:3"])
    func badTargetsAreRefused(input: String) {
        #expect(throws: TargetParseError.self) { try Target(parsing: input) }
    }

    /// Issue 40 (RFC 3986 section 7.5): the password of a URL's userinfo is never shown; the
    /// parse error that names the input names it redacted.
    @Test(arguments: [
        ("https://user:secret@host/", "https://user:REDACTED@host/"),
        ("HTTPS://user:secret@host:8443/p?q=1#f", "HTTPS://user:REDACTED@host:8443/p?q=1#f"),
        ("user:secret@host", "user:REDACTED@host"),
        ("https://user:p@ss:w@rd@host/", "https://user:REDACTED@host/"),
        ("https://user:@host/", "https://user:@host/"),
        ("https://user@host/", "https://user@host/"),
        ("https://host/path@x:y", "https://host/path@x:y"),
        ("https://host/?to=https://u:p@h/", "https://host/?to=https://u:p@h/"),
        ("host:443", "host:443"),
    ])
    func userinfoPasswordsAreRedacted(input: String, shown: String) {
        #expect(UntrustedText.redactingPassword(input) == shown)
        do {
            _ = try Target(parsing: input)
        } catch {
            #expect(!error.description.contains("secret") && !error.input.contains("secret"), "\(error)")
        }
    }

    @Test func canonicalOfferDropsUnusableSuites() {
        let suites = [CipherSuite(rawValue: 0x1301), CipherSuite(rawValue: 0xC02F)]
        #expect(ClientOffer(minVersion: .tls13, maxVersion: .tls13, suites: suites).canonical.suites == [CipherSuite(rawValue: 0x1301)])
        #expect(ClientOffer(minVersion: .tls10, maxVersion: .tls12, suites: suites).canonical.suites == [CipherSuite(rawValue: 0xC02F)])
        #expect(ClientOffer(minVersion: .tls12, maxVersion: .tls13, suites: suites).canonical.suites == suites)
    }
}

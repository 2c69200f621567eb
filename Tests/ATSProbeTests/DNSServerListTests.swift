import Testing
import ATSProbe

/// curl's --dns-servers list, turned into what c-ares takes.
@Suite struct DNSServerListTests {
    @Test(arguments: [
        ("127.0.0.1", "127.0.0.1"),
        ("127.0.0.1:5353", "127.0.0.1:5353"),
        ("::1", "[::1]"),
        ("[::1]", "[::1]"),
        ("[2001:db8::1]:53", "[2001:db8::1]:53"),
        ("10.0.0.1,[::1]:5353,192.0.2.1:1", "10.0.0.1,[::1]:5353,192.0.2.1:1"),
        ("1.1.1.1:65535", "1.1.1.1:65535"),
    ])
    func parses(_ text: String, _ csv: String) throws {
        #expect(try DNSServerList(parsing: text).csv == csv)
    }

    @Test(arguments: [
        ("", "an entry is empty"),
        ("1.1.1.1,", "an entry is empty"),
        ("1.1.1.1,,8.8.8.8", "an entry is empty"),
        ("dns.example", "'dns.example' is not an IPv4 or IPv6 address (with an optional :PORT)"),
        ("1.1.1.1:0", "'1.1.1.1:0' has no port 1-65535 after its colon"),
        ("1.1.1.1:65536", "'1.1.1.1:65536' has no port 1-65535 after its colon"),
        ("1.1.1.1:", "'1.1.1.1:' has no port 1-65535 after its colon"),
        ("[::1]:99999", "'[::1]:99999' has no port 1-65535 after its colon"),
        ("[::1]x", "'[::1]x' is not [IPv6] or [IPv6]:PORT"),
        ("[1.1.1.1]", "'[1.1.1.1]' is not [IPv6] or [IPv6]:PORT"),
        ("[::1", "'[::1' is not [IPv6] or [IPv6]:PORT"),
    ])
    func refuses(_ text: String, _ reason: String) {
        do {
            let list = try DNSServerList(parsing: text)
            Issue.record("'\(text)' accepted as '\(list.csv)'")
        } catch {
            #expect(error.input == text)
            #expect(error.reason == reason)
        }
    }

    @Test func errorNamesTheListEscaped() {
        do {
            _ = try DNSServerList(parsing: "1.1.1.1\u{7}")
            Issue.record("accepted")
        } catch {
            #expect(error.description == "'1.1.1.1\\x07': '1.1.1.1\\x07' is not an IPv4 or IPv6 address (with an optional :PORT)")
        }
    }
}

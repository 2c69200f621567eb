import Testing
@testable import ATSProbe
import ATSTestServers

/// curl's --dns-servers list, turned into what c-ares takes.
@Suite struct DNSServerListTests {
    @Test(arguments: [
        ("127.0.0.1", "127.0.0.1"),
        ("127.0.0.1:5353", "127.0.0.1:5353"),
        // c-ares wants every IPv6 server as [ADDR]:PORT (issue 40, item 8).
        ("::1", "[::1]:53"),
        ("[::1]", "[::1]:53"),
        ("2001:db8::53", "[2001:db8::53]:53"),
        ("::1,127.0.0.1", "[::1]:53,127.0.0.1"),
        ("[2001:db8::1]:53", "[2001:db8::1]:53"),
        ("10.0.0.1,[::1]:5353,192.0.2.1:1", "10.0.0.1,[::1]:5353,192.0.2.1:1"),
        ("1.1.1.1:65535", "1.1.1.1:65535"),
    ])
    func parses(_ text: String, _ csv: String) throws {
        #expect(try DNSServerList(parsing: text).csv == csv)
    }

    @Test(arguments: [
        ("", "an entry is empty", DNSServerListError.Code.emptyEntry),
        ("1.1.1.1,", "an entry is empty", .emptyEntry),
        ("1.1.1.1,,8.8.8.8", "an entry is empty", .emptyEntry),
        ("dns.example", "'dns.example' is not an IPv4 or IPv6 address (with an optional :PORT)", .notAnAddress),
        ("1.1.1.1:0", "'1.1.1.1:0' has no port 1-65535 after its colon", .badPort),
        ("1.1.1.1:65536", "'1.1.1.1:65536' has no port 1-65535 after its colon", .badPort),
        ("1.1.1.1:", "'1.1.1.1:' has no port 1-65535 after its colon", .badPort),
        ("[::1]:99999", "'[::1]:99999' has no port 1-65535 after its colon", .badPort),
        ("[::1]x", "'[::1]x' is not [IPv6] or [IPv6]:PORT", .badIPv6Entry),
        ("[1.1.1.1]", "'[1.1.1.1]' is not [IPv6] or [IPv6]:PORT", .badIPv6Entry),
        ("[::1", "'[::1' is not [IPv6] or [IPv6]:PORT", .badIPv6Entry),
    ])
    func refuses(_ text: String, _ reason: String, _ code: DNSServerListError.Code) {
        do {
            let list = try DNSServerList(parsing: text)
            Issue.record("'\(text)' accepted as '\(list.csv)'")
        } catch {
            #expect(error.input == text)
            #expect(error.code == code)
            #expect(error.reason == reason)
        }
    }

    /// Every form the list reads is one c-ares takes: a Resolver made with it starts (before
    /// issue 40, `::1`, docs/usage.md's own example, and `[::1]` were "Misformatted string").
    @Test(arguments: ["::1", "[::1]", "[::1]:5353", "2001:db8::53", "127.0.0.1", "127.0.0.1:5353", "::1,10.0.0.1:53,[fe80::1]:1"])
    func cAresTakesTheList(_ text: String) throws {
        let csv = try DNSServerList(parsing: text).csv
        let runtime = try ProbeRuntime.shared
        #expect(throws: Never.self, "\(text) as '\(csv)'") { _ = try Resolver(reactor: runtime.reactor, executor: runtime.executor, servers: csv) }
    }

    /// A name resolved through a DNS server this test starts on ::1, named as the user writes it.
    @Test func anIPv6ServerAnswers() async throws {
        let server = try LoopbackDNSServer(names: ["v6dns.test": .answer(v4: ["127.0.0.1"])], bindAddress: "::1")
        defer { server.stop() }
        let list = try DNSServerList(parsing: "[::1]:\(server.port)")
        let runtime = try ProbeRuntime.shared
        let resolver = try Resolver(reactor: runtime.reactor, executor: runtime.executor, servers: list.csv)
        let answer = await withTaskExecutorPreference(runtime.executor) {
            await resolver.lookup("v6dns.test", family: .v4, deadline: Deadline(secondsFromNow: 5))
        }
        #expect((try? answer.get())?.map(\.text) == ["127.0.0.1"], "\(answer)")
        #expect(server.queries(for: "v6dns.test") == 1)
    }

    @Test func errorNamesTheListEscaped() {
        do {
            _ = try DNSServerList(parsing: "1.1.1.1\u{7}")
            Issue.record("accepted")
        } catch {
            #expect(error.description == "'1.1.1.1\\x07': '1.1.1.1\\x07' is not an IPv4 or IPv6 address (with an optional :PORT)")
        }
    }

    /// A list c-ares refuses is a setup error by its code (issue 39, item 7): the command line
    /// names --dns-servers by `code`, never by the English of the line, which stays as it was.
    @Test func aListCAresRefusesIsASetupErrorWithItsCode() throws {
        let runtime = try ProbeRuntime.shared
        do {
            _ = try Prober(options: ProbeOptions(dnsServers: "not-an-address"), runtime: runtime)
            Issue.record("accepted")
        } catch let error as ProbeSetupError {
            #expect(error.code == .dnsServersUnusable)
            #expect(error.path == nil)
            #expect(error.reason.hasPrefix("DNS servers 'not-an-address': "), "\(error.reason)")
            #expect(error.description == "the DNS servers cannot be used: " + error.reason)
        }
    }
}

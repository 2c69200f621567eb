import Testing
import TLSFacts

/// curl's --connect-to HOST:PORT:ADDR:PORT, parsed and applied to targets.
@Suite struct ConnectToRuleTests {
    @Test func parsesEveryField() throws {
        let rule = try ConnectToRule(parsing: "Example.COM:443:127.0.0.1:8443")
        #expect(rule == ConnectToRule(host: "example.com", port: 443, address: "127.0.0.1", addressPort: 8443))
    }

    @Test func emptyFieldsMatchAnyOrKeepTheTargets() throws {
        #expect(try ConnectToRule(parsing: ":::") == ConnectToRule())
        #expect(try ConnectToRule(parsing: "::127.0.0.1:") == ConnectToRule(address: "127.0.0.1"))
        #expect(try ConnectToRule(parsing: "a.test:::9443") == ConnectToRule(host: "a.test", addressPort: 9443))
    }

    @Test func ipv6InBracketsKeepsItsColons() throws {
        let rule = try ConnectToRule(parsing: "[2001:DB8::1]:443:[::1]:8443")
        #expect(rule == ConnectToRule(host: "2001:db8::1", port: 443, address: "::1", addressPort: 8443))
    }

    @Test(arguments: [
        "a.test:443:127.0.0.1",          // three fields
        "a.test:443:127.0.0.1:8443:1",   // five
        "a.test:0:127.0.0.1:8443",       // port 0
        "a.test:443:127.0.0.1:65536",    // out of range
        "a.test:https:127.0.0.1:8443",   // not a number
        "::1:443:127.0.0.1:8443",        // IPv6 without brackets
        "",
    ])
    func refusesWhatIsNotFourFields(_ spec: String) {
        #expect(throws: ConnectToRuleError(input: spec)) { try ConnectToRule(parsing: spec) }
    }

    @Test func errorNamesTheInputEscaped() {
        #expect(ConnectToRuleError(input: "x\u{1B}[2J").description == "'x\\x1B[2J' is not HOST:PORT:ADDR:PORT")
    }

    @Test func theFirstMatchingRuleApplies() throws {
        let target = try Target(parsing: "https://a.test:8443/x")
        let rules = [try ConnectToRule(parsing: "b.test::10.0.0.1:"), try ConnectToRule(parsing: "a.test:8443::9443"),
                     try ConnectToRule(parsing: ":::1")]
        let connected = target.connecting(by: rules)
        #expect(connected.connectAddress == "a.test")
        #expect(connected.connectPort == 9443)
        #expect(connected.host == "a.test" && connected.port == 8443 && connected.path == "/x")
    }

    @Test func aRuleForAnotherPortOrOneChangingNothingLeavesTheTarget() throws {
        let target = try Target(parsing: "a.test")
        #expect(target.connecting(by: [try ConnectToRule(parsing: "a.test:8443:127.0.0.1:1")]) == target)
        // The first match wins even when it changes nothing, as curl.
        #expect(target.connecting(by: [try ConnectToRule(parsing: "a.test:443::"), try ConnectToRule(parsing: "::127.0.0.1:")]) == target)
        #expect(target.connecting(by: []) == target)
    }
}

@testable import ATSPolicy
import Testing
import TLSFacts

/// One IP-address parser (TLSFacts.IPAddress, inet_pton's grammar, as Apple's
/// SecProtocolConfiguration.m parses exception keys) behind targets, exception keys, their lint
/// and the test listeners: each text below gets the same answer from every reader.
@Suite struct IPAddressTests {
    @Test(arguments: [
        ("192.168.1.10", IPAddress.Family.v4), ("::1", .v6), ("::ffff:127.0.0.1", .v6), ("2001:db8::5", .v6),
    ])
    func addresses(text: String, family: IPAddress.Family) throws {
        let address = try #require(IPAddress(text))
        #expect(address.family == family && address.bytes.count == family.byteCount)
        #expect(Target.isIPAddress(text))
        #expect(IPAddressRange.parseAddress(text) == address.bytes)
        #expect(IPAddressRange(text) != nil)
    }

    /// Not addresses: inet_aton's short forms, brackets, zones, prefixes, out-of-range parts.
    @Test(arguments: ["1.2.3", "256.1.1.1", "[::1]", "fe80::1%lo", "1.2.3.4/8", "example.com", "", "1.2.3.4.5", "::g"])
    func notAddresses(text: String) {
        #expect(IPAddress(text) == nil)
        #expect(!Target.isIPAddress(text))
        #expect(IPAddressRange.parseAddress(text) == nil)
    }

    @Test func familyIsAsked() {
        #expect(IPAddress("127.0.0.1", family: .v6) == nil)
        #expect(IPAddress("::1", family: .v4) == nil)
        #expect(IPAddress("10.0.0.1", family: .v4)?.bytes == [10, 0, 0, 1])
    }
}

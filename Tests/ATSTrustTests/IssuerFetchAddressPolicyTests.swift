import Testing
import ATSTrust
import TLSFacts

/// Issue 24 item 5: a caIssuers fetch may reach a non-global address only when the target is at
/// one itself, or with --allow-private-fetch. Apple's trustd has no such rule (docs/trust.md).
@Suite struct IssuerFetchAddressPolicyTests {
    @Test(arguments: [
        ("127.0.0.1", "loopback"), ("127.8.9.10", "loopback"), ("::1", "loopback"), ("::ffff:127.0.0.1", "loopback"),
        ("169.254.169.254", "link-local"), ("fe80::1", "link-local"),
        ("10.1.2.3", "private"), ("172.16.0.1", "private"), ("172.31.255.255", "private"), ("192.168.1.1", "private"),
        ("fd00::1", "private"), ("100.64.0.1", "shared (carrier-grade NAT)"), ("0.0.0.0", "unspecified"), ("::", "unspecified"),
        ("224.0.0.1", "multicast"), ("ff02::1", "multicast"), ("192.0.2.1", "reserved"), ("2001:db8::1", "reserved"),
        ("255.255.255.255", "reserved"), ("64:ff9b::a00:1", "private"),
        ("172.32.0.1", "global"), ("8.8.8.8", "global"), ("100.128.0.1", "global"), ("2606:4700::1111", "global"),
    ])
    func addressClasses(address: String, expected: String) throws {
        let parsed = try #require(IPAddress(address))
        #expect(IssuerFetchAddressPolicy.AddressClass(parsed).rawValue == expected, "\(address)")
    }

    @Test func refusedForAGlobalOrNamedTargetUnlessAllowed() {
        let publicTarget = IssuerFetchAddressPolicy(targetAddress: "93.184.216.34", allowPrivateFetch: false)
        #expect(publicTarget.refusal(connectingTo: "127.0.0.1")
                == "refused: 127.0.0.1 is a loopback address and the target is not (a server must not aim the auditor at its own network)")
        #expect(publicTarget.refusal(connectingTo: "169.254.169.254")?.contains("link-local") == true)
        #expect(publicTarget.refusal(connectingTo: "10.0.0.1") != nil)
        #expect(publicTarget.refusal(connectingTo: "8.8.8.8") == nil)
        // `cert --host example.com`: a name, not an address, is not a non-global target.
        #expect(IssuerFetchAddressPolicy(targetAddress: "example.com", allowPrivateFetch: false).refusal(connectingTo: "::1") != nil)
        #expect(IssuerFetchAddressPolicy(targetAddress: nil, allowPrivateFetch: false).refusal(connectingTo: "::1") != nil)
        // A loopback or private target may fetch from such addresses (the existing loopback tests rely on it).
        #expect(IssuerFetchAddressPolicy(targetAddress: "127.0.0.1", allowPrivateFetch: false).refusal(connectingTo: "127.0.0.1") == nil)
        #expect(IssuerFetchAddressPolicy(targetAddress: "10.0.0.7", allowPrivateFetch: false).refusal(connectingTo: "10.0.0.8") == nil)
        #expect(IssuerFetchAddressPolicy(targetAddress: "93.184.216.34", allowPrivateFetch: true).refusal(connectingTo: "127.0.0.1") == nil)
    }
}

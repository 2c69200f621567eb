import Testing
import TLSFacts
@testable import ATSPolicy

/// NSExceptionDomains and NSPinnedDomains share one NSIncludesSubdomains walk, Apple's
/// (SecProtocolConfiguration.m _find_parent_domain): these are the cases where the two copies
/// the walk replaced disagreed, each asked of both lookups.
@Suite("NSIncludesSubdomains walk: exceptions and pins agree")
struct SubdomainWalkTests {
    static let keys = ["example.com", "", "10.0.0.1"]
    let config = ATSConfiguration(
        exceptionDomains: Dictionary(uniqueKeysWithValues: keys.map { ($0, DomainException(includesSubdomains: true)) }),
        pinnedDomains: Dictionary(uniqueKeysWithValues: keys.map { ($0, PinSet(includesSubdomains: true, caIdentities: ["AAAA"])) }))

    private func both(_ host: String, _ reading: SubdomainReading = .anyDepth) -> (exception: String?, pin: String?) {
        (config.match(host: host, reading: reading)?.key, config.pinnedDomain(host: host, reading: reading)?.key)
    }

    /// An empty label is a label: "a..example.com" is two below example.com, so the documented
    /// one-label reading does not cover it (the pin walk used to skip empty labels and took it).
    @Test func emptyLabelCountsAsALabel() {
        #expect(config.match(host: "a..example.com")?.kind == .subdomain(depth: 2))
        #expect(both("a..example.com", .oneLabel) == (nil, nil))
        #expect(both("a..example.com") == ("example.com", "example.com"))
        #expect(both("a.example.com", .oneLabel) == ("example.com", "example.com"))
    }

    /// The empty key is the last parent of a host ending in "." and of no other host (the
    /// exception walk used to skip it; Apple's walk reaches "" from "example.org.").
    @Test func emptyKeyIsParentOnlyOfTrailingDotHosts() {
        #expect(both("www.example.org.") == ("", ""))
        #expect(config.match(host: "www.example.org.")?.kind == .subdomain(depth: 3))
        #expect(both("www.example.org") == (nil, nil))
    }

    /// An IP address host is looked up whole and never walked, as Apple's
    /// sec_protocol_configuration_find_exception_for_address does (the pin walk used to take the
    /// key "0.0.1" as a parent of "10.0.0.1").
    @Test func ipHostsAreLookedUpWholeNotWalked() {
        let pins = ATSConfiguration(pinnedDomains: ["0.0.1": PinSet(includesSubdomains: true, caIdentities: ["AAAA"])])
        #expect(pins.pinnedDomain(host: "10.0.0.1") == nil)
        #expect(config.pinnedDomain(host: "10.0.0.1")?.key == "10.0.0.1")
        #expect(config.match(host: "10.0.0.1")?.kind == .addressRange(prefixLength: 32))
    }

    /// A plain (non-CIDR) key is a string to the walk, as in Apple's domain map: an IP-like key
    /// with NSIncludesSubdomains is a parent of a name ending in it (the exception walk used to
    /// skip IP-like keys).
    @Test func plainIPLikeKeysAreWalked() {
        #expect(both("host.10.0.0.1") == ("10.0.0.1", "10.0.0.1"))
    }

    /// Nearest parent wins; a parent without NSIncludesSubdomains is passed over, not a stop.
    @Test func nearestIncludingParentWins() {
        let nested = ATSConfiguration(exceptionDomains: [
            "example.com": DomainException(includesSubdomains: true),
            "b.example.com": DomainException(),
            "c.b.example.com": DomainException(includesSubdomains: true),
        ])
        #expect(nested.match(host: "x.c.b.example.com")?.key == "c.b.example.com")
        #expect(nested.match(host: "x.b.example.com")?.key == "example.com")
        #expect(nested.match(host: "x.b.example.com")?.kind == .subdomain(depth: 2))
    }
}

extension SubdomainWalkTests {
    /// Keys that differ only in case: the lower-case key (the one Apple's exact lookup finds for
    /// a URL host), else the first in code-point order; never the dictionary's order.
    @Test func caseTwinsResolveToTheLowerCaseKey() {
        let twins = ATSConfiguration(exceptionDomains: ["Example.com": DomainException(includesSubdomains: true),
                                                        "example.com": DomainException(includesSubdomains: true),
                                                        "EXAMPLE.com": DomainException(includesSubdomains: true)])
        #expect(twins.match(host: "www.example.com")?.key == "example.com")
        #expect(twins.match(host: "example.com")?.key == "example.com")
        let noLower = ATSConfiguration(pinnedDomains: ["Example.com": PinSet(caIdentities: ["A"]), "EXAMPLE.com": PinSet(caIdentities: ["B"])])
        #expect(noLower.pinnedDomain(host: "example.com")?.key == "EXAMPLE.com")
    }
}

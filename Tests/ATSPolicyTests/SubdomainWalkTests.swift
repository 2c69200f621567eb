import Testing
import TLSFacts
@testable import ATSPolicy

/// NSExceptionDomains' NSIncludesSubdomains walk is Apple's (SecProtocolConfiguration.m
/// `_find_parent_domain`, any depth); NSPinnedDomains has Apple's other lookup (SecPolicy.c
/// `parseNSPinnedDomains`: the host and its immediate parent only). Both remove the host's
/// trailing dot first. These are the cases where the two lookups differ, each asked of both.
@Suite("NSIncludesSubdomains: the exception walk and the pin lookup")
struct SubdomainWalkTests {
    static let keys = ["example.com", "", "10.0.0.1"]
    let config = ATSConfiguration(
        exceptionDomains: Dictionary(uniqueKeysWithValues: keys.map { ($0, DomainException(includesSubdomains: true)) }),
        pinnedDomains: Dictionary(uniqueKeysWithValues: keys.map { ($0, PinSet(includesSubdomains: true, caIdentities: ["AAAA"])) }))

    private func both(_ host: String, _ reading: SubdomainReading = .anyDepth) -> (exception: String?, pin: String?) {
        (config.match(host: host, reading: reading)?.key, config.pinnedDomain(host: host)?.key)
    }

    /// An empty label is a label: "a..example.com" is two below example.com, so the documented
    /// one-label reading does not cover it, and neither does Apple's pin lookup (one label).
    @Test func emptyLabelCountsAsALabel() {
        #expect(config.match(host: "a..example.com")?.kind == .subdomain(depth: 2))
        #expect(both("a..example.com", .oneLabel) == (nil, nil))
        #expect(both("a..example.com") == ("example.com", nil))
        #expect(both("a.example.com", .oneLabel) == ("example.com", "example.com"))
    }

    /// SecPolicy.c parseNSPinnedDomains compares a key with the host and with its immediate
    /// parent only: NSIncludesSubdomains on a pinned domain reaches one label down, while the
    /// exception walk (SecProtocolConfiguration.m) reaches any depth.
    @Test func pinsReachOneLabelExceptionsAnyDepth() {
        #expect(both("b.a.example.com") == ("example.com", nil))
        #expect(both("a.example.com") == ("example.com", "example.com"))
    }

    /// The host's trailing dot is removed before both lookups (SecPolicy.c parseNSPinnedDomains,
    /// "Strip the trailing dot if any"), so "www.example.org." is "www.example.org": the empty key
    /// is no parent of it, and "example.com." finds the "example.com" entry.
    @Test func trailingDotIsRemovedBeforeLookup() {
        #expect(both("www.example.org.") == (nil, nil))
        #expect(both("example.com.") == ("example.com", "example.com"))
        #expect(config.match(host: "www.example.com.")?.kind == .subdomain(depth: 1))
        let dotted = ATSConfiguration(exceptionDomains: ["example.com.": DomainException()],
                                      pinnedDomains: ["example.com.": PinSet(caIdentities: ["AAAA"])])
        #expect(dotted.match(host: "example.com.") == nil)
        #expect(dotted.pinnedDomain(host: "example.com.") == nil)
    }

    /// An IP address host is looked up whole by the exception lookup (Apple's
    /// sec_protocol_configuration_find_exception_for_address has no parents), but Apple's pin
    /// lookup treats it as a name: "0.0.1" with NSIncludesSubdomains is the parent of "10.0.0.1"
    /// (SecPolicy.c CopyParentDomainNameFromHostName).
    @Test func ipHostsAreLookedUpWholeByExceptionsAsNamesByPins() {
        let pins = ATSConfiguration(exceptionDomains: ["0.0.1": DomainException(includesSubdomains: true)],
                                    pinnedDomains: ["0.0.1": PinSet(includesSubdomains: true, caIdentities: ["AAAA"])])
        #expect(pins.pinnedDomain(host: "10.0.0.1")?.key == "0.0.1")
        #expect(pins.match(host: "10.0.0.1") == nil)
        #expect(config.pinnedDomain(host: "10.0.0.1")?.key == "10.0.0.1")
        #expect(config.match(host: "10.0.0.1")?.kind == .addressRange(prefixLength: 32))
    }

    /// A plain (non-CIDR) key is a string to the walk, as in Apple's domain map: an IP-like key
    /// with NSIncludesSubdomains is a parent of a name ending in it.
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

    /// Every pinned entry that applies counts: the host's own and its parent's identities are
    /// joined (parseNSPinnedDomains appends from every matching key), per identity key.
    @Test func pinsOfEveryApplyingEntryAreJoined() {
        let two = ATSConfiguration(pinnedDomains: [
            "example.com": PinSet(includesSubdomains: true, caIdentities: ["CA1"]),
            "www.example.com": PinSet(caIdentities: ["CA2"], leafIdentities: ["LEAF"]),
        ])
        let found = two.pinnedDomain(host: "www.example.com")
        #expect(found?.keys == ["example.com", "www.example.com"])
        #expect(found?.pins.caIdentities == ["CA1", "CA2"])
        #expect(found?.pins.leafIdentities == ["LEAF"])
    }
}

extension SubdomainWalkTests {
    /// Keys that differ only in case: the exception walk takes the lower-case key (the one
    /// Apple's exact lookup finds for a URL host), else the first in code-point order; the pin
    /// lookup compares case-insensitively and takes them all.
    @Test func caseTwins() {
        let twins = ATSConfiguration(exceptionDomains: ["Example.com": DomainException(includesSubdomains: true),
                                                        "example.com": DomainException(includesSubdomains: true),
                                                        "EXAMPLE.com": DomainException(includesSubdomains: true)])
        #expect(twins.match(host: "www.example.com")?.key == "example.com")
        #expect(twins.match(host: "example.com")?.key == "example.com")
        let noLower = ATSConfiguration(pinnedDomains: ["Example.com": PinSet(caIdentities: ["A"]), "EXAMPLE.com": PinSet(caIdentities: ["B"])])
        #expect(noLower.pinnedDomain(host: "example.com")?.keys == ["EXAMPLE.com", "Example.com"])
        #expect(noLower.pinnedDomain(host: "example.com")?.pins.caIdentities == ["B", "A"])
    }
}

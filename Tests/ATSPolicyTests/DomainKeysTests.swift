import Testing
import TLSFacts
@testable import ATSPolicy

/// `DomainKeys`, the one matcher: NSExceptionDomains' lookup is Apple's (SecProtocolConfiguration.m:
/// the host exactly as written, then `_find_parent_domain` to any depth); NSPinnedDomains has
/// Apple's other lookup (SecPolicy.c `parseNSPinnedDomains`: case-insensitive, the host's trailing
/// dot removed, the host and its immediate parent only). These are the cases where the two
/// lookups differ, each asked of both.
@Suite("DomainKeys: the exception lookup and the pin lookup")
struct DomainKeysTests {
    static let keys = ["example.com", "", "10.0.0.1"]
    let config = ATSConfiguration(
        exceptionDomains: Dictionary(uniqueKeysWithValues: keys.map { ($0, DomainException(includesSubdomains: true)) }),
        pinnedDomains: Dictionary(uniqueKeysWithValues: keys.map { ($0, PinSet(includesSubdomains: true, caIdentities: ["AAAA"])) }))

    private func both(_ host: String, _ reading: SubdomainReading = .anyDepth) -> (exception: String?, pin: String?) {
        (config.match(host: host, reading: reading, ruleSet: .documented)?.key, config.pinnedDomain(host: host)?.key)
    }

    /// An empty label is a label: "a..example.com" is two below example.com, so the documented
    /// one-label reading does not cover it, and neither does Apple's pin lookup (one label).
    @Test func emptyLabelCountsAsALabel() {
        #expect(config.match(host: "a..example.com", reading: .anyDepth, ruleSet: .documented)?.kind == .subdomain(depth: 2))
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

    /// The pin lookup removes the host's trailing dot (SecPolicy.c parseNSPinnedDomains, "Strip
    /// the trailing dot if any"); the exception lookup looks the host up as written
    /// (SecProtocolConfiguration.m: `xpc_dictionary_get_dictionary(domain_map, host)`), so
    /// "example.com." walks to "com." and then to the empty key.
    @Test func trailingDotIsRemovedBeforeThePinLookupOnly() {
        #expect(both("example.com.") == ("", "example.com"))
        #expect(both("www.example.org.") == ("", nil))
        let dotted = ATSConfiguration(exceptionDomains: ["example.com.": DomainException(includesSubdomains: true)],
                                      pinnedDomains: ["example.com.": PinSet(caIdentities: ["AAAA"])])
        #expect(dotted.match(host: "example.com.", reading: .anyDepth, ruleSet: .documented)?.key == "example.com.")
        #expect(dotted.match(host: "www.example.com.", reading: .anyDepth, ruleSet: .documented)?.kind == .subdomain(depth: 1))
        #expect(dotted.match(host: "example.com", reading: .anyDepth, ruleSet: .documented) == nil)
        #expect(dotted.pinnedDomain(host: "example.com.") == nil)
        #expect(dotted.pinnedDomain(host: "example.com") == nil)
    }

    /// An IP address host is looked up whole by the exception lookup (Apple's
    /// sec_protocol_configuration_find_exception_for_address has no parents), but Apple's pin
    /// lookup treats it as a name: "0.0.1" with NSIncludesSubdomains is the parent of "10.0.0.1"
    /// (SecPolicy.c CopyParentDomainNameFromHostName).
    @Test func ipHostsAreLookedUpWholeByExceptionsAsNamesByPins() {
        let pins = ATSConfiguration(exceptionDomains: ["0.0.1": DomainException(includesSubdomains: true)],
                                    pinnedDomains: ["0.0.1": PinSet(includesSubdomains: true, caIdentities: ["AAAA"])])
        #expect(pins.pinnedDomain(host: "10.0.0.1")?.key == "0.0.1")
        #expect(pins.match(host: "10.0.0.1", reading: .anyDepth, ruleSet: .documented) == nil)
        #expect(config.pinnedDomain(host: "10.0.0.1")?.key == "10.0.0.1")
        #expect(config.match(host: "10.0.0.1", reading: .anyDepth, ruleSet: .documented)?.kind == .addressRange(prefixLength: 32))
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
        #expect(nested.match(host: "x.c.b.example.com", reading: .anyDepth, ruleSet: .documented)?.key == "c.b.example.com")
        #expect(nested.match(host: "x.b.example.com", reading: .anyDepth, ruleSet: .documented)?.key == "example.com")
        #expect(nested.match(host: "x.b.example.com", reading: .anyDepth, ruleSet: .documented)?.kind == .subdomain(depth: 2))
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

extension DomainKeysTests {
    /// Exception keys are looked up exactly: a key with capitals never matches a (lower-case) URL
    /// host, whatever its twins; the pin lookup compares case-insensitively and takes them all.
    @Test func caseTwins() {
        let twins = ATSConfiguration(exceptionDomains: ["Example.com": DomainException(includesSubdomains: true),
                                                        "example.com": DomainException(includesSubdomains: true),
                                                        "EXAMPLE.com": DomainException(includesSubdomains: true)])
        #expect(twins.match(host: "www.example.com", reading: .anyDepth, ruleSet: .documented)?.key == "example.com")
        #expect(twins.match(host: "example.com", reading: .anyDepth, ruleSet: .documented)?.key == "example.com")
        let capitals = ATSConfiguration(exceptionDomains: ["Example.com": DomainException(includesSubdomains: true)],
                                        pinnedDomains: ["Example.com": PinSet(includesSubdomains: true, caIdentities: ["A"])])
        #expect(capitals.match(host: "example.com", reading: .anyDepth, ruleSet: .documented) == nil)
        #expect(capitals.match(host: "www.example.com", reading: .anyDepth, ruleSet: .documented) == nil)
        #expect(capitals.pinnedDomain(host: "www.example.com")?.keys == ["Example.com"])
        let noLower = ATSConfiguration(pinnedDomains: ["Example.com": PinSet(caIdentities: ["A"]), "EXAMPLE.com": PinSet(caIdentities: ["B"])])
        #expect(noLower.pinnedDomain(host: "example.com")?.keys == ["EXAMPLE.com", "Example.com"])
        #expect(noLower.pinnedDomain(host: "example.com")?.pins.caIdentities == ["B", "A"])
    }
}

extension DomainKeysTests {
    /// What lint and the notes say about a key: it misses every host, and the rename that matches.
    @Test func unmatchableKeysAndTheirRenames() {
        #expect(DomainKeys.unmatchable("PFS5.Test", in: .exceptionDomains) == .init(reasons: [.upperCase], rename: "pfs5.test"))
        #expect(DomainKeys.unmatchable("PFS5.Test", in: .pinnedDomains) == nil, "pin keys compare case-insensitively")
        #expect(DomainKeys.unmatchable("api.test.", in: .exceptionDomains) == .init(reasons: [.trailingDot], rename: "api.test"))
        #expect(DomainKeys.unmatchable("Api.Test.", in: .pinnedDomains) == .init(reasons: [.trailingDot], rename: "Api.Test"))
        #expect(DomainKeys.unmatchable("Api.Test.", in: .exceptionDomains) == .init(reasons: [.upperCase, .trailingDot], rename: "api.test"))
        #expect(DomainKeys.unmatchable("pfs5.test", in: .exceptionDomains) == nil)
        #expect(DomainKeys.unmatchable("2001:DB8::/32", in: .exceptionDomains) == nil, "IP and CIDR keys: their own rules")
        #expect(DomainKeys.unmatchable("2001:DB8::1", in: .exceptionDomains) == nil)
        #expect(DomainKeys.key(for: "api.test.", in: .pinnedDomains) == "api.test")
        #expect(DomainKeys.key(for: "api.test.", in: .exceptionDomains) == "api.test.")
    }

    /// The key a renamed entry is written under is found by the lookup (lint's rename is a key
    /// that matches).
    @Test func theRenameMatches() throws {
        for key in ["PFS5.Test", "Api.Example.COM.", "x.test."] {
            let rename = try #require(DomainKeys.unmatchable(key, in: .exceptionDomains)).rename
            let config = ATSConfiguration(exceptionDomains: [rename: DomainException()])
            #expect(config.match(host: rename, reading: .anyDepth, ruleSet: .documented)?.key == rename)
        }
    }
}

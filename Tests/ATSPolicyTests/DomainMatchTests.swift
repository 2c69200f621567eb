import Testing
import TLSFacts
@testable import ATSPolicy

@Suite struct DomainMatchTests {
    let config = ATSConfiguration(exceptionDomains: [
        "example.com": DomainException(includesSubdomains: true, minimumTLSVersion: "TLSv1.1"),
        "api.example.com": DomainException(minimumTLSVersion: "TLSv1.0"),
        "exact.org": DomainException(),
        "dotted.net.": DomainException(includesSubdomains: true),
        "192.168.1.0/24": DomainException(requiresForwardSecrecy: false),
        "192.168.1.10": DomainException(allowsInsecureHTTPLoads: true),
        "10.0.0.0/8": DomainException(minimumTLSVersion: "TLSv1.1"),
        "2001:db8::/32": DomainException(minimumTLSVersion: "TLSv1.0"),
    ])

    @Test func exactBeatsSubdomain() {
        #expect(config.match(host: "api.example.com", reading: .anyDepth, ruleSet: .documented)?.key == "api.example.com")
        #expect(config.match(host: "api.example.com", reading: .anyDepth, ruleSet: .documented)?.kind == .exact)
        // Looked up exactly, as Apple stores and looks up keys (DomainKeys): URL hosts are lower case.
        #expect(config.match(host: "EXAMPLE.com", reading: .anyDepth, ruleSet: .documented) == nil)
        #expect(config.match(host: "www.example.com", reading: .anyDepth, ruleSet: .documented)?.kind == .subdomain(depth: 1))
        #expect(config.match(host: "notexample.com", reading: .anyDepth, ruleSet: .documented) == nil)
        #expect(config.match(host: "www.exact.org", reading: .anyDepth, ruleSet: .documented) == nil, "no NSIncludesSubdomains")
    }

    @Test func subdomainDepthReadings() {
        #expect(config.match(host: "a.b.example.com", reading: .anyDepth, ruleSet: .documented)?.kind == .subdomain(depth: 2))
        #expect(config.match(host: "a.b.example.com", reading: .oneLabel, ruleSet: .documented) == nil)
        #expect(config.match(host: "b.example.com", reading: .oneLabel, ruleSet: .documented)?.key == "example.com")
        let disagreement = config.subdomainDisagreement(host: "a.b.example.com", ruleSet: .documented)
        #expect(disagreement?.anyDepth?.key == "example.com")
        #expect(disagreement?.oneLabel == nil)
        #expect(disagreement?.message.contains("one label") == true)
        #expect(config.subdomainDisagreement(host: "b.example.com", ruleSet: .documented) == nil)
        // The two readings also change the policy.
        let any = EffectivePolicy(configuration: config, host: "a.b.example.com", ruleSet: .documented, subdomainReading: .anyDepth)
        let one = EffectivePolicy(configuration: config, host: "a.b.example.com", ruleSet: .documented, subdomainReading: .oneLabel)
        #expect(any.minimumVersion == .tls11 && one.minimumVersion == .tls12)
        #expect(any.subdomainDisagreement != nil)
    }

    /// The exception lookup keeps the host's trailing dot (SecProtocolConfiguration.m,
    /// `xpc_dictionary_get_dictionary(domain_map, host)`; docs/rules.md, "Domain keys"), so a key
    /// ending in a dot matches only a host written with the dot.
    @Test func trailingDotKeyMatchesOnlyADottedHost() {
        #expect(config.match(host: "dotted.net.", reading: .anyDepth, ruleSet: .documented)?.kind == .exact)
        #expect(config.match(host: "www.dotted.net.", reading: .anyDepth, ruleSet: .documented)?.kind == .subdomain(depth: 1))
        #expect(config.match(host: "dotted.net", reading: .anyDepth, ruleSet: .documented) == nil)
        #expect(config.match(host: "www.dotted.net", reading: .anyDepth, ruleSet: .documented) == nil)
    }

    @Test func ipKeysLongestPrefixWins() {
        #expect(config.match(host: "192.168.1.10", reading: .anyDepth, ruleSet: .documented)?.key == "192.168.1.10")
        #expect(config.match(host: "192.168.1.11", reading: .anyDepth, ruleSet: .documented)?.key == "192.168.1.0/24")
        #expect(config.match(host: "10.200.0.1", reading: .anyDepth, ruleSet: .documented)?.kind == .addressRange(prefixLength: 8))
        #expect(config.match(host: "2001:db8::5", reading: .anyDepth, ruleSet: .documented)?.key == "2001:db8::/32")
        #expect(config.match(host: "172.16.0.1", reading: .anyDepth, ruleSet: .documented) == nil)
    }

    @Test func ipKeysIgnoredBeforeIOS17() {
        #expect(config.match(host: "192.168.1.10", reading: .anyDepth, ruleSet: .ios13) == nil)
        let policy = EffectivePolicy(configuration: .default, host: "192.168.1.10", ruleSet: .ios13)
        #expect(policy.exemption == .ipAddressBeforeIOS17)
        #expect(!policy.atsRequired && policy.allowsInsecureHTTP)
        let after = EffectivePolicy(configuration: .default, host: "192.168.1.10", ruleSet: .documented)
        #expect(after.atsApplies && after.atsRequired && !after.allowsInsecureHTTP)
    }

    @Test func namesAndAddressesNeverCrossMatch() {
        let named = ATSConfiguration(exceptionDomains: ["example.com": DomainException(includesSubdomains: true)])
        #expect(named.match(host: "93.184.216.34", reading: .anyDepth, ruleSet: .documented) == nil)
        let numeric = ATSConfiguration(exceptionDomains: ["10.0.0.0/8": DomainException()])
        #expect(numeric.match(host: "10.example.com", reading: .anyDepth, ruleSet: .documented) == nil)
        #expect(numeric.match(host: "example.com", reading: .anyDepth, ruleSet: .documented) == nil)
    }

    @Test func localNetworking() {
        let config = ATSConfiguration(allowsArbitraryLoads: true, allowsLocalNetworking: true,
                                      exceptionDomains: ["printer.local": DomainException()])
        for host in ["nas", "mac.local", "Mac.Local.", "10.0.0.1", "::1"] {
            #expect(EffectivePolicy(configuration: config, host: host, ruleSet: .documented).exemption == .localNetworking, "\(host)")
        }
        // NSAllowsLocalNetworking switches NSAllowsArbitraryLoads off for everything else.
        #expect(EffectivePolicy(configuration: config, host: "example.com", ruleSet: .documented).atsRequired)
        // An exception entry, even empty, wins over the global keys.
        #expect(EffectivePolicy(configuration: config, host: "printer.local", ruleSet: .documented).atsRequired)
    }

    /// SecProtocolConfiguration.m, tls_required_for_host with is_direct, and its unit tests
    /// (testBuiltInExceptions, testExceptionRaisesSecurityRequirements): a direct host with no
    /// entry needs no TLS unless NSAllowsLocalNetworking is explicitly NO; an entry applies as written.
    @Test func localNetworkingByApplesCode() {
        let direct = ["myhost.local", "myhost.local.", "printer", "127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"]
        let notDirect = ["example.com", "10.0.0.1", "192.168.1.10", "2001:db8::1", "local", "myhost.localdomain"]
        for ruleSet in [RuleSet.ios26, .ios17] {
            for host in direct {
                let policy = EffectivePolicy(configuration: .default, host: host, ruleSet: ruleSet)
                #expect(policy.exemption == .localNetworking, "\(host) under \(ruleSet.id)")
                #expect(!policy.atsRequired && policy.allowsInsecureHTTP, "\(host) under \(ruleSet.id)")
                // NSAllowsLocalNetworking = NO puts the host back under ATS.
                let off = EffectivePolicy(configuration: ATSConfiguration(allowsLocalNetworking: false), host: host, ruleSet: ruleSet)
                #expect(off.atsRequired && off.exemption == nil, "\(host) with NSAllowsLocalNetworking = NO")
            }
            for host in notDirect where host != "local" {
                #expect(EffectivePolicy(configuration: .default, host: host, ruleSet: ruleSet).atsRequired, "\(host) under \(ruleSet.id)")
            }
            // A matching entry applies as written (myhost.local in Apple's test: TLS 1.2, PFS, ATS required).
            let entry = ATSConfiguration(exceptionDomains: ["myhost.local": DomainException(allowsInsecureHTTPLoads: false, requiresForwardSecrecy: true)])
            let matched = EffectivePolicy(configuration: entry, host: "myhost.local", ruleSet: ruleSet)
            #expect(matched.atsRequired && matched.minimumVersion == .tls12 && matched.requiresForwardSecrecy)
        }
        // "local" alone is an unqualified name: direct.
        #expect(EffectivePolicy.isDirect("local"))
        // Apple's documentation reads it the other way: only NSAllowsLocalNetworking = YES exempts.
        for host in direct {
            #expect(EffectivePolicy(configuration: .default, host: host, ruleSet: .documented).atsRequired, "\(host) under documented")
        }
    }

    @Test func exceptionEntryBeatsArbitraryLoads() {
        let config = ATSConfiguration(allowsArbitraryLoads: true, exceptionDomains: ["strict.example": DomainException()])
        #expect(EffectivePolicy(configuration: config, host: "strict.example", ruleSet: .documented).atsRequired)
        #expect(EffectivePolicy(configuration: config, host: "other.example", ruleSet: .documented).exemption == .arbitraryLoads)
    }

    @Test func pinnedDomainMatching() {
        let config = ATSConfiguration(pinnedDomains: ["example.com": PinnedDomain(includesSubdomains: true, caIdentities: ["ca"])])
        #expect(config.pinnedDomain(host: "www.example.com")?.key == "example.com")
        #expect(config.pinnedDomain(host: "a.b.example.com") == nil)  // SecPolicy.c parseNSPinnedDomains: one label
        #expect(config.pinnedDomain(host: "example.org") == nil)
    }
}

@Suite struct EffectivePolicyTests {
    func policy(_ exception: DomainException?, ruleSet: RuleSet = .documented, allowAll: Bool = false) -> EffectivePolicy {
        let config = ATSConfiguration(allowsArbitraryLoads: allowAll,
                                      exceptionDomains: exception.map { ["example.com": $0] } ?? [:])
        return EffectivePolicy(configuration: config, host: "example.com", ruleSet: ruleSet)
    }

    @Test func defaultOffer() {
        let offer = policy(nil).clientOffer(ruleSet: .documented)
        #expect(offer.minVersion == .tls12 && offer.maxVersion == .tls13)
        #expect(offer.suites.count == 14)
        #expect(Array(offer.suites.prefix(3)) == SuiteTables.tls13)
        // ECDHE_ECDSA before ECDHE_RSA, GCM before CBC.
        let names = offer.suites.map(\.ianaName)
        #expect(names[3] == "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384")
        #expect(names.firstIndex(of: "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256")! < names.firstIndex(of: "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256")!)
        let lastGCM = names.lastIndex { $0.contains("GCM") }!
        let firstCBC = names.firstIndex { $0.contains("CBC") }!
        #expect(lastGCM < firstCBC)
    }

    @Test func offersPerNSCurlTest() {
        for ruleSet in RuleSet.all {
            let fs = Set(ruleSet.atsSuites), rsa = Set(ruleSet.nonForwardSecretSuites), platform = Set(ruleSet.platformSuites)
            let cases: [(DomainException?, Bool, TLSVersion, Set<CipherSuite>, Bool)] = [
                (nil, false, .tls12, fs, true),
                (nil, true, ruleSet.platformMinimumVersion, platform, false),
                (DomainException(minimumTLSVersion: "TLSv1.1"), false, .tls11, fs, true),
                (DomainException(minimumTLSVersion: "TLSv1.3"), false, .tls13, fs, true),
                (DomainException(requiresForwardSecrecy: false), false, .tls12, fs.union(rsa), true),
                (DomainException(allowsInsecureHTTPLoads: true, requiresForwardSecrecy: false), false, .tls12, platform, false),
                (DomainException(minimumTLSVersion: "TLSv1.0", requiresForwardSecrecy: false), false,
                 .tls10, fs.union(rsa), true),
                (DomainException(allowsInsecureHTTPLoads: true, minimumTLSVersion: "TLSv1.0", requiresForwardSecrecy: false), false,
                 .tls10, platform, false),
                // Insecure HTTP alone: ATS-required off, but the suites stay restricted.
                (DomainException(allowsInsecureHTTPLoads: true), false, .tls12, fs, false),
            ]
            for (exception, allowAll, minimum, suites, required) in cases {
                let p = policy(exception, ruleSet: ruleSet, allowAll: allowAll)
                let offer = p.clientOffer(ruleSet: ruleSet)
                #expect(offer.minVersion == minimum, "\(ruleSet.id) \(String(describing: exception))")
                #expect(Set(offer.suites) == suites, "\(ruleSet.id) \(String(describing: exception))")
                #expect(p.atsRequired == required, "\(ruleSet.id) \(String(describing: exception))")
            }
        }
    }

    @Test func keySizeCheckDroppedWithForwardSecrecyOff() {
        #expect(policy(nil).checksLeafKeySize)
        #expect(!policy(DomainException(requiresForwardSecrecy: false)).checksLeafKeySize)
        #expect(policy(DomainException(requiresForwardSecrecy: false)).checksLeafSignatureHash)
        var strict = RuleSet.documented
        strict.forwardSecrecyExceptionDropsKeySizeCheck = false
        #expect(policy(DomainException(requiresForwardSecrecy: false), ruleSet: strict).checksLeafKeySize)
        #expect(!policy(DomainException(allowsInsecureHTTPLoads: true)).checksLeafKeySize)
    }

    @Test func insecureHTTP() {
        #expect(!policy(nil).allowsInsecureHTTP)
        #expect(policy(DomainException(allowsInsecureHTTPLoads: true)).allowsInsecureHTTP)
        #expect(policy(nil, allowAll: true).allowsInsecureHTTP)
    }
}

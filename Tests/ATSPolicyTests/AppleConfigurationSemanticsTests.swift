import ATSPolicyFixtures
import Foundation
import PropertyList
import Testing
import TLSFacts
@testable import ATSPolicy

/// The classes of issue 22 item 5 that Apple's SecProtocolConfiguration.m and SecPolicy.c decide,
/// cell by cell, each cell citing the Apple function or unit test it follows (docs/rules.md,
/// "Configuration semantics"). Offline: configurations and hosts only.
@Suite("Apple's configuration semantics: value types, built-in exceptions, direct addresses, pins, trailing dots")
struct AppleConfigurationSemanticsTests {
    private func policy(_ ats: [String: PropertyListValue], _ host: String, ruleSet: RuleSet = .ios26,
                        direct: [IPAddress] = []) -> EffectivePolicy {
        EffectivePolicy(configuration: ATSConfiguration(propertyList: ats), host: host, ruleSet: ruleSet, directAddresses: direct)
    }

    // MARK: Value types (SecProtocolConfiguration.m sec_protocol_configuration_set_ats_overrides,
    // ATS_VALUE_FOR_KEY / BOOLEAN_FOR_KEY: an NSNumber compared with @YES; anything else ignored)

    /// testGarbageValueDisablesAllowsArbitraryLoads: NSAllowsArbitraryLoads = 2 and = "YES" leave
    /// ATS required; <true/>, 1 and 1.0 are YES (NSNumber isEqual: compares values).
    @Test(arguments: [
        (PropertyListValue.boolean(true), false), (.integer(1), false), (.real(1.0), false),
        (.integer(2), true), (.string("YES"), true), (.string("true"), true), (.boolean(false), true), (.integer(0), true),
    ])
    func allowsArbitraryLoadsIsANumberComparedWithYES(value: PropertyListValue, atsRequired: Bool) {
        #expect(policy(["NSAllowsArbitraryLoads": value], "example.com").atsRequired == atsRequired)
    }

    /// ATS_VALUE_FOR_KEY: a string NSAllowsLocalNetworking is ignored, so the key is absent and
    /// NSAllowsArbitraryLoads stays in force; a number (even 0) is present and turns it off
    /// (sec_protocol_configuration_tls_required).
    @Test func stringGlobalKeyIsAbsentNumberIsPresent() {
        #expect(policy(["NSAllowsArbitraryLoads": true, "NSAllowsLocalNetworking": "YES"], "example.com").exemption == .arbitraryLoads)
        #expect(policy(["NSAllowsArbitraryLoads": true, "NSAllowsLocalNetworking": 0], "example.com").atsRequired)
        #expect(ATSConfiguration(propertyList: ["NSAllowsLocalNetworking": "YES"]).allowsLocalNetworking == nil)
        #expect(ATSConfiguration(propertyList: ["NSAllowsLocalNetworking": 2]).allowsLocalNetworking == false)
    }

    /// testInvalidATSDictionary: "YES"/"NO" strings and a number for NSExceptionMinimumTLSVersion
    /// are ignored: TLS required, TLS 1.2, forward secrecy; an entry that is not a dictionary is
    /// no entry at all.
    @Test func invalidEntryValuesAreIgnored() {
        let ats: [String: PropertyListValue] = [
            "NSAllowsArbitraryLoads": "YES",
            "NSExceptionDomains": [
                "invalid.exception.com": "",
                "neverssl.com": ["NSExceptionAllowsInsecureHTTPLoads": "YES", "NSExceptionMinimumTLSVersion": 13,
                                 "NSExceptionRequiresForwardSecrecy": "NO"],
            ],
        ]
        for host in ["example.com", "neverssl.com", "invalid.exception.com"] {
            let p = policy(ats, host)
            #expect(p.atsRequired && p.minimumVersion == .tls12 && p.requiresForwardSecrecy, "\(host)")
        }
        #expect(policy(ats, "invalid.exception.com").match == nil)
        // Not a dictionary: skipped, so NSAllowsArbitraryLoads (a real YES here) still covers the host.
        #expect(policy(["NSAllowsArbitraryLoads": true, "NSExceptionDomains": ["skipped.example": "x"]], "skipped.example").exemption == .arbitraryLoads)
    }

    /// BOOLEAN_FOR_KEY inside an entry: 1 is YES, 2 is NO (so NSExceptionRequiresForwardSecrecy = 2
    /// drops forward secrecy, and NSIncludesSubdomains = 2 covers no subdomain).
    @Test func entryBooleansAreNumbersComparedWithYES() {
        let ats: [String: PropertyListValue] = ["NSExceptionDomains": [
            "a.example": ["NSExceptionAllowsInsecureHTTPLoads": 1, "NSIncludesSubdomains": 2],
            "b.example": ["NSExceptionRequiresForwardSecrecy": 2],
        ]]
        #expect(!policy(ats, "a.example").atsRequired)
        #expect(policy(ats, "www.a.example").match == nil)
        #expect(!policy(ats, "b.example").requiresForwardSecrecy)
    }

    // MARK: Built-in exceptions (sec_protocol_configuration_register_builtin_exceptions)

    /// testBuiltInExceptions: with no entry of the app's, the seven built-in domains (and their
    /// subdomains: csd4.apple.com) need no TLS; apple.com and setup.icloud.com keep TLS 1.2, the
    /// others TLS 1.0; example.com is under ATS.
    @Test(arguments: [("apple.com", TLSVersion.tls12), ("csd4.apple.com", .tls12), ("setup.icloud.com", .tls12),
                      ("ls.apple.com", .tls10), ("gs.apple.com", .tls10), ("geo.apple.com", .tls10),
                      ("is.autonavi.com", .tls10), ("apple-mapkit.com", .tls10)])
    func builtInExceptionsApplyToEveryApp(host: String, minimum: TLSVersion) {
        let p = policy(["NSAllowsArbitraryLoads": false], host)
        #expect(p.match?.isBuiltIn == true)
        #expect(!p.atsRequired && p.allowsInsecureHTTP && !p.requiresForwardSecrecy)
        #expect(p.minimumVersion == minimum)
        #expect(policy(["NSAllowsArbitraryLoads": false], "example.com").atsRequired)
    }

    /// testExceptionOverridesBuiltInException: the app's "apple.com" (TLSv1.3, no subdomains)
    /// replaces the built-in one, so csd4.apple.com falls back to the defaults; ls.apple.com keeps
    /// its own built-in entry.
    @Test func appEntryReplacesBuiltInException() {
        let ats: [String: PropertyListValue] = ["NSExceptionDomains": [
            "apple.com": ["NSExceptionAllowsInsecureHTTPLoads": false, "NSExceptionMinimumTLSVersion": "TLSv1.3", "NSIncludesSubdomains": false],
            "setup.icloud.com": ["NSExceptionAllowsInsecureHTTPLoads": false, "NSExceptionMinimumTLSVersion": "TLSv1.3"],
        ]]
        let apple = policy(ats, "apple.com")
        #expect(apple.atsRequired && apple.minimumVersion == .tls13 && apple.match?.isBuiltIn == false)
        let csd4 = policy(ats, "csd4.apple.com")
        #expect(csd4.atsRequired && csd4.minimumVersion == .tls12 && csd4.match == nil)
        #expect(policy(ats, "test.setup.icloud.com").atsRequired)
        #expect(policy(ats, "ls.apple.com").match?.isBuiltIn == true)
        #expect(policy(ats, "ls.apple.com").minimumVersion == .tls10)
    }

    /// Apple's documentation lists no built-in exception: `documented` has none.
    @Test func documentedRuleSetHasNoBuiltInExceptions() {
        #expect(policy([:], "apple.com", ruleSet: .documented).atsRequired)
        #expect(!policy([:], "apple.com", ruleSet: .ios13).atsRequired)
    }

    // MARK: Direct addresses (sec_protocol_configuration_tls_required_for_host_or_address_internal, is_direct)

    /// testLocalNetworkingAllowedByDefault: loopback, link-local (fe80::/10; and 169.254/16) and
    /// local names are direct and need no TLS without the key; fe00::1 and routed addresses do.
    @Test(arguments: [("localhost", false), ("myhost.local", false), ("myhost.local.", false), ("127.0.0.1", false),
                      ("::1", false), ("fe80::1", false), ("febf::1", false), ("169.254.10.20", false),
                      ("::ffff:169.254.1.1", false), ("example.com", true), ("203.0.113.1", true), ("fe00::1", true),
                      ("fec0::1", true), ("169.255.0.1", true), ("2001:db8::8a2e:370:7334", true)])
    func directHostsNeedNoTLSByDefault(host: String, atsRequired: Bool) {
        #expect(policy([:], host).atsRequired == atsRequired)
    }

    /// testLocalNetworkingDisabled: NSAllowsLocalNetworking = NO puts every direct host back under ATS.
    @Test(arguments: ["localhost", "myhost.local", "127.0.0.1", "::1", "fe80::1", "169.254.1.1"])
    func localNetworkingNOPutsDirectHostsUnderATS(host: String) {
        #expect(policy(["NSAllowsLocalNetworking": false], host).atsRequired)
    }

    /// testLocalNetworkingKeyOverridesAllowsArbitraryLoads: with NSAllowsLocalNetworking = YES a
    /// routed address (203.0.113.1, 2001:db8::...) stays under ATS; direct ones do not.
    @Test func localNetworkingYESExemptsDirectHostsNeverRoutedAddresses() {
        let ats: [String: PropertyListValue] = ["NSAllowsArbitraryLoads": true, "NSAllowsLocalNetworking": true]
        #expect(policy(ats, "203.0.113.1").atsRequired)
        #expect(policy(ats, "2001:db8::8a2e:370:7334").atsRequired)
        #expect(policy(ats, "google.com").atsRequired)
        #expect(!policy(ats, "fe80::1").atsRequired)
        #expect(!policy(ats, "127.0.0.1").atsRequired)
        // Apple's documentation exempts every IP address with the key (`documented`).
        #expect(!policy(ats, "203.0.113.1", ruleSet: .documented).atsRequired)
    }

    /// `directAddresses` is Apple's `is_direct` input for an address the device reaches on-link.
    @Test func declaredDirectAddressIsExempt() {
        let lan = [IPAddress("192.168.1.20")!]
        #expect(!policy([:], "192.168.1.20", direct: lan).atsRequired)
        #expect(policy([:], "192.168.1.21", direct: lan).atsRequired)
        #expect(policy(["NSAllowsLocalNetworking": false], "192.168.1.20", direct: lan).atsRequired)
    }

    // MARK: Pins (SecPolicy.c parseNSPinnedDomains; SecPolicyServer.c SecPolicyCheck{CA,Leaf}SPKISHA256)

    static let pin = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="

    /// A present identity key with no usable identity (empty array, not an array, only unreadable
    /// elements) is an empty pin set: no chain matches and the load fails; an absent key pins nothing.
    @Test(arguments: [
        PropertyListValue.array([]), .string("x"), .array([.string(AppleConfigurationSemanticsTests.pin)]),
        .array([["SPKI-SHA256-BASE64": "not base64!"]]), .array([["SPKI-SHA256-BASE64": .data(Data([1]))]]),
    ])
    func unusableIdentityArrayMatchesNothing(value: PropertyListValue) {
        let pins = PinSet(propertyList: ["NSPinnedLeafIdentities": value])
        #expect(pins.leafIdentities == [])
        #expect(!pins.canEverMatch)
        let chain = testObservation(chainSPKIs: [Self.pin, Self.pin]).chain
        #expect(PinningPolicy.evaluate(chain: chain, pins: pins).verdict == .mismatched)
        let p = policy(["NSPinnedDomains": ["example.com": ["NSPinnedLeafIdentities": value]]], "example.com")
        #expect(ATSEvaluator.evaluate(.success(testObservation(chainSPKIs: [Self.pin, Self.pin])), under: p, ruleSet: .ios26, certificateViolations: [])
            .reasons.map(\.kind) == [.pinMismatch])
    }

    @Test func absentIdentityKeyPinsNothingAndReadableOnesMatch() {
        let none = PinSet(propertyList: [:])
        #expect(none.caIdentities == nil && none.leafIdentities == nil && none.canEverMatch)
        let chain = testObservation(chainSPKIs: [Self.pin, "other"]).chain
        #expect(PinningPolicy.evaluate(chain: chain, pins: none).verdict == .noPins)
        let good = PinSet(propertyList: ["NSPinnedLeafIdentities": [["SPKI-SHA256-BASE64": .string(Self.pin)], "junk"]])
        #expect(good.leafIdentities == [Self.pin])
        #expect(PinningPolicy.evaluate(chain: chain, pins: good).verdict == .matched)
    }

    /// parseNSPinnedDomains: NSIncludesSubdomains must be kCFBooleanTrue; the integer 1 is not.
    @Test func pinnedIncludesSubdomainsMustBeTheBooleanTrue() {
        let entry: (PropertyListValue) -> [String: PropertyListValue] = { flag in
            ["NSPinnedDomains": ["example.com": ["NSIncludesSubdomains": flag, "NSPinnedLeafIdentities": [["SPKI-SHA256-BASE64": .string(Self.pin)]]]]]
        }
        #expect(policy(entry(true), "www.example.com").pins != nil)
        #expect(policy(entry(1), "www.example.com").pins == nil)
    }

    // MARK: Trailing dots (SecPolicy.c parseNSPinnedDomains: "Strip the trailing dot if any")

    /// The pin lookup removes the host's dot; the exception lookup (SecProtocolConfiguration.m,
    /// `xpc_dictionary_get_dictionary(domain_map, host)`) looks the host up as written, built-in
    /// exceptions included (docs/rules.md, "Domain keys").
    @Test func trailingDotIsRemovedBeforeThePinLookupOnly() {
        let ats: [String: PropertyListValue] = [
            "NSExceptionDomains": ["example.com": ["NSExceptionAllowsInsecureHTTPLoads": true]],
            "NSPinnedDomains": ["example.com": ["NSPinnedLeafIdentities": [["SPKI-SHA256-BASE64": .string(Self.pin)]]]],
        ]
        let dotted = policy(ats, "example.com.")
        #expect(dotted.match == nil && dotted.atsRequired)
        #expect(dotted.pins?.leafIdentities == [Self.pin])
        #expect(policy([:], "www.apple.com.").match == nil)
        #expect(policy([:], "www.apple.com").match?.isBuiltIn == true)
    }
}

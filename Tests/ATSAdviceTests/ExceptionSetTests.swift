import Foundation
import Testing
import PropertyList
import TLSFacts
@testable import ATSAdvice
@testable import ATSPolicy
import ATSPolicyFixtures

/// Merging per-host suggestions into one dictionary, comparing entries key by key, and merging
/// into an existing property list, all without a network.
@Suite struct ExceptionSetTests {
    static let tls11 = DomainException(minimumTLSVersion: "TLSv1.1")
    static let noPFS = DomainException(requiresForwardSecrecy: false)

    func advice(_ host: String, _ suggestion: ExceptionSuggestion, port: Int = 443) -> HostAdvice {
        HostAdvice(target: "https://\(host):\(port)/", host: host, suggestion: suggestion, observations: [], ruleSet: .documented)
    }

    func need(_ host: String, _ exception: DomainException, port: Int = 443) -> HostAdvice {
        advice(host, .exception(domain: host, exception, rationale: []), port: port)
    }

    @Test func widthIsComparedByEffect() {
        // A malformed version is TLS 1.2 to Apple: narrower than TLSv1.1.
        let malformed = DomainException(minimumTLSVersion: "TLSv1.1 ")
        #expect(malformed.keysNarrower(than: Self.tls11) == ["NSExceptionMinimumTLSVersion"])
        #expect(malformed.widened(toCover: Self.tls11).minimumTLSVersion == "TLSv1.1")
        let wide = DomainException(allowsInsecureHTTPLoads: true, minimumTLSVersion: "TLSv1.0", requiresForwardSecrecy: false)
        #expect(wide.keysNarrower(than: Self.tls11).isEmpty)
        #expect(wide.keysWider(than: Self.tls11) == ["NSExceptionMinimumTLSVersion", "NSExceptionRequiresForwardSecrecy", "NSExceptionAllowsInsecureHTTPLoads"])
        #expect(wide.widened(toCover: Self.tls11) == wide)
        #expect(Self.tls11.widened(toCover: Self.noPFS) == DomainException(minimumTLSVersion: "TLSv1.1", requiresForwardSecrecy: false))
        // An explicit default is neither wider nor narrower than nothing.
        #expect(DomainException(minimumTLSVersion: "TLSv1.2", requiresForwardSecrecy: true).keysWider(than: DomainException()).isEmpty)
    }

    @Test func subdomainsGroupOnlyWhenEveryProbedOneSharesTheNeed() {
        let same = [need("a.example.test", Self.tls11), need("b.example.test", Self.tls11)]
        var grouped = DomainException(minimumTLSVersion: "TLSv1.1")
        grouped.includesSubdomains = true
        #expect(SuggestedExceptions(same, includeSubdomains: true).domains == ["example.test": grouped])
        #expect(SuggestedExceptions(same, includeSubdomains: true).coveredBy == ["a.example.test": "example.test", "b.example.test": "example.test"])
        #expect(SuggestedExceptions(same).domains == ["a.example.test": Self.tls11, "b.example.test": Self.tls11])
        // A sibling that needs nothing, needs something else, or cannot be helped blocks the parent entry.
        for other in [advice("c.example.test", .none), need("c.example.test", Self.noPFS),
                      advice("c.example.test", .impossible(reason: "expired"))] {
            let domains = SuggestedExceptions(same + [other], includeSubdomains: true).domains
            #expect(domains["example.test"] == nil)
            #expect(domains["a.example.test"] == Self.tls11)
        }
        // The parent itself, when probed, must share the need too; a deeper host is covered by it.
        let withParent = same + [need("example.test", Self.tls11), need("x.a.example.test", Self.tls11)]
        #expect(SuggestedExceptions(withParent, includeSubdomains: true).domains == ["example.test": grouped])
        // One probed subdomain is no evidence about its siblings.
        #expect(SuggestedExceptions([need("a.example.test", Self.tls11)], includeSubdomains: true).domains == ["a.example.test": Self.tls11])
        // Never a bare TLD, never IP addresses.
        #expect(SuggestedExceptions([need("a.test", Self.tls11), need("b.test", Self.tls11)], includeSubdomains: true).domains.count == 2)
        #expect(SuggestedExceptions([need("10.0.0.1", Self.tls11), need("10.0.0.2", Self.tls11)], includeSubdomains: true).domains.count == 2)
    }

    @Test func oneHostOnSeveralPortsGetsTheWidestEntryAndUnhelpableOnesAreListed() {
        let set = SuggestedExceptions([need("a.example", Self.tls11, port: 443), need("a.example", Self.noPFS, port: 8443),
                                       advice("b.example", .impossible(reason: "leaf expired")), advice("c.example", .none)])
        #expect(set.domains == ["a.example": DomainException(minimumTLSVersion: "TLSv1.1", requiresForwardSecrecy: false)])
        #expect(set.unhelpable.map(\.host) == ["b.example"])
        #expect(set.unhelpable.first?.reason == "leaf expired")
        #expect(set.configuration.propertyList.isEmpty == false)
        #expect(SuggestedExceptions([advice("c.example", .none)]).configuration.propertyList.isEmpty)
    }

    @Test func evidenceNamesTheDecidingObservation() {
        let server = SimulatedServer(versions: [.tls11], suites: [suite(0x002F)])
        let results = server.diagnose(ruleSet: .documented)
        let suggestion = ExceptionAdvisor.suggest(host: "example.com", results: results, ruleSet: .documented)
        let observations = results.map { test, _ in
            server.handshake(EffectivePolicy(configuration: test.configuration, host: "example.com", ruleSet: .documented).clientOffer(ruleSet: .documented))
        }
        let advice = HostAdvice(target: "https://example.com/", host: "example.com", suggestion: suggestion,
                                observations: observations, ruleSet: .documented)
        #expect(advice.exception == DomainException(minimumTLSVersion: "TLSv1.1", requiresForwardSecrecy: false))
        #expect(advice.evidence.map(\.key) == ["NSExceptionMinimumTLSVersion", "NSExceptionRequiresForwardSecrecy"])
        #expect(advice.evidence[0].observation.hasPrefix("server's highest protocol is TLS 1.1 (TLS_RSA_WITH_AES_128_CBC_SHA); minimum TLS 1.2 fails"))
        #expect(advice.evidence[1].observation.hasPrefix("server chose TLS_RSA_WITH_AES_128_CBC_SHA under every offer it answered"))
        #expect(advice.fixes.map(\.keys) == [["NSExceptionMinimumTLSVersion"], ["NSExceptionRequiresForwardSecrecy"]])
        // Merged per directive (issue 25): the protocol fix already sets SSLCipherSuite.
        #expect(advice.fixes[0].apache == ["SSLProtocol -all +TLSv1.2 +TLSv1.3", "SSLCipherSuite ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384"])
        #expect(advice.fixes[1].apache == ["SSLHonorCipherOrder on"])
    }

    @Test func insecureHTTPFixFollowsTheCause() {
        let sha1 = SimulatedServer(versions: [.tls12], suites: [suite(0xC02F)], hash: .sha1)
        let results = sha1.diagnose(ruleSet: .documented)
        let observations = [sha1.handshake(ClientOffer(minVersion: .tls10, maxVersion: .tls13, suites: SuiteTables.platform2019))]
        let advice = HostAdvice(target: "https://example.com/", host: "example.com",
                                suggestion: ExceptionAdvisor.suggest(host: "example.com", results: results, ruleSet: .documented),
                                observations: observations, ruleSet: .documented)
        #expect(advice.exception?.allowsInsecureHTTPLoads == true)
        let fix = advice.fixes.first { $0.keys == ["NSExceptionAllowsInsecureHTTPLoads"] }
        #expect(fix?.change.hasPrefix("the leaf is signed with") == true)
        #expect(advice.evidence.first { $0.key == "NSExceptionAllowsInsecureHTTPLoads" }?.observation.contains("leaf signed with") == true)
    }

    /// CHACHA20 only, documented rules: one server change (an ATS suite) removes both keys.
    @Test func chachaNeedsOneFixForBothKeys() {
        let chacha = SimulatedServer(versions: [.tls12], suites: [suite(0xCCA8)])
        let results = chacha.diagnose(ruleSet: .documented)
        let observations = results.map { test, _ in
            chacha.handshake(EffectivePolicy(configuration: test.configuration, host: "example.com", ruleSet: .documented).clientOffer(ruleSet: .documented))
        }
        let advice = HostAdvice(target: "https://example.com/", host: "example.com",
                                suggestion: ExceptionAdvisor.suggest(host: "example.com", results: results, ruleSet: .documented),
                                observations: observations, ruleSet: .documented)
        #expect(advice.fixes.map(\.keys) == [["NSExceptionRequiresForwardSecrecy", "NSExceptionAllowsInsecureHTTPLoads"]])
        #expect(advice.fixes.first?.nginx == ["ssl_ciphers ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384;", "ssl_prefer_server_ciphers on;"])
        let pfs = advice.evidence.first { $0.key == "NSExceptionRequiresForwardSecrecy" }?.observation
        #expect(pfs == "server chose TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256 under every offer it answered, never an ATS forward-secret suite (documented); NSExceptionAllowsInsecureHTTPLoads alone still limits the offer to ATS suites")
    }

    func document(_ ats: [String: PropertyListValue], extra: [String: PropertyListValue] = ["CFBundleIdentifier": "com.example"]) -> PropertyListDocument {
        var root = extra
        root["NSAppTransportSecurity"] = .dictionary(ats)
        return PropertyListDocument(root: root)
    }

    func entries(_ merge: InfoPlistMerge) -> [String: DomainException] {
        ATSConfiguration(propertyList: merge.root["NSAppTransportSecurity"]?.dictionaryValue ?? [:]).exceptionDomains
    }

    @Test func parentEntryIsNeverNarrowedByAMoreSpecificOne() throws {
        let parent: [String: PropertyListValue] = ["NSIncludesSubdomains": true, "NSExceptionAllowsInsecureHTTPLoads": true]
        let merged = try InfoPlistMerge(document(["NSExceptionDomains": ["example.test": .dictionary(parent)]]),
                                        adding: ["a.example.test": Self.tls11], ruleSet: .current)
        // The new entry keeps the parent's insecure HTTP so a.example.test loses nothing.
        #expect(entries(merged)["a.example.test"] == DomainException(allowsInsecureHTTPLoads: true, minimumTLSVersion: "TLSv1.1"))
        #expect(entries(merged)["example.test"] == DomainException(propertyList: parent))
        #expect(merged.notes.contains { $0.hasPrefix("added an entry for a.example.test: the entry for example.test covers it but lacks NSExceptionMinimumTLSVersion") })
        // A parent that already serves the need: nothing added, tightening noted.
        let covered = try InfoPlistMerge(document(["NSExceptionDomains": ["example.test": .dictionary(parent)]]),
                                         adding: ["a.example.test": DomainException()], ruleSet: .current)
        #expect(entries(covered).keys.sorted() == ["example.test"])
        #expect(covered.notes == ["a.example.test is covered by the entry for example.test, which is wider than this probe needs; it could be tightened: NSExceptionAllowsInsecureHTTPLoads"])
    }

    /// Which existing entry governs a host follows the rule set the probes ran under: a CIDR key
    /// covers an address only where IP/CIDR keys are read (iOS 17 and later; not `ios16`).
    @Test func aCIDREntryCoversAnAddressOnlyUnderRuleSetsThatReadIt() throws {
        let range: [String: PropertyListValue] = ["NSExceptionMinimumTLSVersion": "TLSv1.1"]
        let app = document(["NSExceptionDomains": ["10.0.0.0/8": .dictionary(range)]])
        let current = try InfoPlistMerge(app, adding: ["10.1.2.3": Self.tls11], ruleSet: .ios26)
        #expect(entries(current).keys.sorted() == ["10.0.0.0/8"], "the range already serves 10.1.2.3")
        let before17 = try InfoPlistMerge(app, adding: ["10.1.2.3": Self.tls11], ruleSet: .ios13)
        #expect(entries(before17).keys.sorted() == ["10.0.0.0/8", "10.1.2.3"], "ios16 does not read the range")
    }

    @Test func deprecatedNamesAreWidenedWithTheCurrentName() throws {
        let old: [String: PropertyListValue] = ["NSThirdPartyExceptionMinimumTLSVersion": "TLSv1.2", "Custom": 3]
        let merged = try InfoPlistMerge(document(["NSExceptionDomains": ["a.example": .dictionary(old)]]), adding: ["a.example": Self.tls11], ruleSet: .current)
        let written = merged.root["NSAppTransportSecurity"]?["NSExceptionDomains"]?["a.example"]?.dictionaryValue ?? [:]
        #expect(written["NSExceptionMinimumTLSVersion"] == "TLSv1.1")
        #expect(written["NSThirdPartyExceptionMinimumTLSVersion"] == "TLSv1.2")
        #expect(written["Custom"] == 3)
        #expect(merged.root["CFBundleIdentifier"] == "com.example")
    }

    @Test func missingOrBareDictionariesAndWrongTypes() throws {
        let fresh = try InfoPlistMerge(PropertyListDocument(root: ["CFBundleIdentifier": "x"]), adding: ["a.example": Self.tls11], ruleSet: .current)
        #expect(entries(fresh) == ["a.example": Self.tls11])
        let bare = try InfoPlistMerge(PropertyListDocument(root: ["NSAllowsArbitraryLoads": true]), adding: ["a.example": Self.tls11], ruleSet: .current)
        #expect(bare.root["NSAppTransportSecurity"] == nil)
        #expect(bare.root["NSExceptionDomains"]?.dictionaryValue?.keys.sorted() == ["a.example"])
        #expect(bare.notes.first?.hasPrefix("NSAllowsArbitraryLoads is set") == true)
        #expect(throws: InfoPlistMerge.Failure.self) {
            try InfoPlistMerge(PropertyListDocument(root: ["NSAppTransportSecurity": "yes"]), adding: ["a.example": Self.tls11], ruleSet: .current)
        }
        #expect(throws: InfoPlistMerge.Failure.self) {
            try InfoPlistMerge(PropertyListDocument(root: ["NSAppTransportSecurity": ["NSExceptionDomains": [1]]]), adding: [:], ruleSet: .current)
        }
    }
}

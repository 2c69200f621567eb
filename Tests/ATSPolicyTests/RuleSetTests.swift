import Testing
import TLSFacts
@testable import ATSPolicy
import ATSPolicyFixtures

@Suite struct RuleSetTests {
    @Test func namedRuleSets() {
        #expect(RuleSet.all.map(\.id) == ["ios26", "documented", "ios17", "ios15.4", "ios13"])
        #expect(RuleSet.named("ios15.4") == .appleCode2022)
        #expect(RuleSet.named("IOS26") == .ios26)
        #expect(RuleSet.named("ios13") == .ios13)
        #expect(RuleSet.named("ios16") == nil, "no set is named ios16 any more: --rules ios16 is a release")
        #expect(RuleSet.named("documented") == .documented)
        #expect(RuleSet.named("ios9") == nil)
        #expect(Set(RuleSet.all.map(\.id)).count == RuleSet.all.count)
    }

    /// Each rule set carries the releases it models, declared with it; no two claim one release;
    /// the matrix order is the release order, with Apple's documentation (no release) last.
    @Test func releasesAreDisjointAndOrdered() {
        #expect(RuleSet.inReleaseOrder.map(\.id) == ["ios13", "ios15.4", "ios17", "ios26", "documented"])
        // Each id is the first release its set covers.
        for set in RuleSet.all where set.releases != nil {
            #expect(set.id == "ios\(set.releases!.iOSFirst)", "\(set.id): \(set.releasesText)")
        }
        #expect(RuleSet.documented.releases == nil)
        let releases = RuleSet.all.compactMap(\.releases)
        #expect(releases.count == RuleSet.all.count - 1)
        for (index, range) in releases.enumerated() {
            for other in releases[(index + 1)...] { #expect(!range.overlaps(other), "\(range.text) / \(other.text)") }
        }
        #expect(RuleSet.ios13.releases?.text == "iOS 13 - 15.3, macOS 10.15 - 12.2")
        #expect(RuleSet.appleCode2022.releases?.text == "iOS 15.4 - 16, macOS 12.3 - 13")
        #expect(RuleSet.ios17.releases?.text == "iOS 17 - 18, macOS 14 - 15")
        #expect(RuleSet.ios26.releases?.text == "iOS 26 and later, macOS 26 and later")
        // The overlap test itself: 15.3 and 15.4 are apart, 16 falls in 15.4 - 16.
        let old = ReleaseRange(iOS: .init(13), through: .init(16), macOS: .init(10, 15), through: .init(13))
        #expect(old.overlaps(RuleSet.appleCode2022.releases!))
        #expect(!RuleSet.ios13.releases!.overlaps(RuleSet.appleCode2022.releases!))
    }

    /// `--rules` takes a release (issue 39): it resolves to the set whose releases cover it, so
    /// `ios16` judges as an iOS 16 device does; the old id `ios16` says so once.
    @Test func releasesResolveToTheSetThatCoversThem() {
        let cases: [(String, String)] = [
            ("ios13", "ios13"), ("ios14", "ios13"), ("ios15", "ios13"), ("ios15.3", "ios13"), ("ios15.4", "ios15.4"),
            ("ios16", "ios15.4"), ("ios16.7", "ios15.4"), ("ios17", "ios17"), ("ios17.2", "ios17"), ("ios18.6", "ios17"),
            ("ios26", "ios26"), ("ios27", "ios26"), ("macos10.15", "ios13"), ("macos12.2", "ios13"), ("macos12.3", "ios15.4"),
            ("macos13", "ios15.4"), ("macos14", "ios17"), ("macos15.5", "ios17"), ("macos26", "ios26"), ("MacOS14", "ios17"),
            ("documented", "documented"),
        ]
        for (text, id) in cases {
            #expect(RuleSet.resolve(text)?.ruleSet.id == id, "\(text)")
        }
        #expect(RuleSet.resolve("ios16")?.notice?.hasPrefix("note: --rules ios16 means iOS 16 (rule set ios15.4, iOS 15.4 - 16)") == true)
        #expect(RuleSet.resolve("ios17.2")?.notice == nil)
        for bad in ["ios12", "ios", "ios16.", "ios16.1.2", "ios1234", "macos10.14", "android14", "ios-16", ""] {
            #expect(RuleSet.resolve(bad) == nil, "\(bad)")
        }
        #expect(RuleSet.idsWithReleases.hasPrefix("ios13 (iOS 13 - 15.3, macOS 10.15 - 12.2), ios15.4 (iOS 15.4 - 16"))
    }

    /// Every release set counts lifetimes as its era's Security code does: 825 days and one hour
    /// (SecPolicyServer.c, Security-59306 to -61901; docs/rules.md, "Releases").
    @Test func everyReleaseSetCountsLifetimesAsItsCode() {
        for set in RuleSet.all where set.releases != nil {
            #expect(set.certificateRules == .securityFramework, "\(set.id)")
        }
        #expect(RuleSet.documented.certificateRules == .documented)
    }

    @Test func documentedGroups() {
        let set = RuleSet.documented
        #expect(set.forwardSecretSuites.count == 11)
        #expect(set.nonForwardSecretSuites.count == 6)
        #expect(!set.forwardSecretSuites.contains(suite(0xC014)))
        #expect(!set.forwardSecretSuites.contains(where: { $0.ianaName.contains("CHACHA") }))
        #expect(set.tls13Suites.map(\.ianaName) == ["TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"])
        #expect(Set(set.forwardSecretSuites + set.nonForwardSecretSuites).isSubset(of: Set(set.platformSuites)))
        #expect(set.platformMinimumVersion == .tls10)
        #expect(set.ipAddressesSubjectToATS)
        #expect(set.forwardSecretSuites.allSatisfy { $0.isForwardSecret && !$0.ianaName.hasPrefix("0x") })
        #expect(set.nonForwardSecretSuites.allSatisfy { !$0.isForwardSecret && $0.ianaName.hasPrefix("TLS_RSA_") })
    }

    @Test func appleCode2022Groups() {
        let set = RuleSet.appleCode2022
        #expect(set.id == "ios15.4")
        #expect(set.forwardSecretSuites.count == 10)
        #expect(set.nonForwardSecretSuites.map(\.rawValue) == [0x009D, 0x009C, 0x0035, 0x002F])
        #expect(set.forwardSecretSuites.contains(suite(0xC014)))
        #expect(set.forwardSecretSuites.contains(suite(0xCCA8)) && set.forwardSecretSuites.contains(suite(0xCCA9)))
        #expect(!set.forwardSecretSuites.contains { $0.ianaName.hasSuffix("CBC_SHA256") || $0.ianaName.hasSuffix("CBC_SHA384") })
        #expect(!set.platformSuites.contains { $0.ianaName.hasSuffix("CBC_SHA256") || $0.ianaName.hasSuffix("CBC_SHA384") })
        #expect(set.platformSuites.contains(suite(0x000A)))
        #expect(set.platformMinimumVersion == .tls10)
    }

    @Test func ios26AndBeforeIOS17() {
        #expect(RuleSet.ios26.platformMinimumVersion == .tls12)
        #expect(RuleSet.ios26.forwardSecretSuites == RuleSet.appleCode2022.forwardSecretSuites)
        #expect(RuleSet.ios13.ipAddressesSubjectToATS == false)
        #expect(RuleSet.ios13.forwardSecretSuites == RuleSet.documented.forwardSecretSuites)
    }

    @Test func noPlatformOffersWeakSuites() {
        for set in RuleSet.all {
            #expect(!set.platformSuites.contains { name in
                ["_DHE_", "NULL", "EXPORT", "RC4", "CAMELLIA", "ARIA"].contains { name.ianaName.contains($0) }
            }, "\(set.id)")
        }
    }
}

import Testing
import TLSFacts
@testable import ATSPolicy
import ATSPolicyFixtures

@Suite struct RuleSetTests {
    @Test func namedRuleSets() {
        #expect(RuleSet.all.map(\.id) == ["ios26", "documented", "ios15.4", "ios16"])
        #expect(RuleSet.named("ios15.4") == .appleCode2022)
        #expect(RuleSet.named("IOS26") == .ios26)
        #expect(RuleSet.named("ios16") == .beforeIOS17)
        #expect(RuleSet.named("documented") == .documented)
        #expect(RuleSet.named("ios9") == nil)
        #expect(Set(RuleSet.all.map(\.id)).count == RuleSet.all.count)
    }

    /// Each rule set carries the releases it models, declared with it; no two claim one release;
    /// the matrix order is the release order, with Apple's documentation (no release) last.
    @Test func releasesAreDisjointAndOrdered() {
        #expect(RuleSet.inReleaseOrder.map(\.id) == ["ios16", "ios15.4", "ios26", "documented"])
        #expect(RuleSet.documented.releases == nil)
        let releases = RuleSet.all.compactMap(\.releases)
        #expect(releases.count == RuleSet.all.count - 1)
        for (index, range) in releases.enumerated() {
            for other in releases[(index + 1)...] { #expect(!range.overlaps(other), "\(range.text) / \(other.text)") }
        }
        #expect(RuleSet.beforeIOS17.releases?.text == "iOS 13 - 15.3, macOS 10.15 - 12.2")
        #expect(RuleSet.appleCode2022.releases?.text == "iOS 15.4 - 18, macOS 12.3 - 15")
        #expect(RuleSet.ios26.releases?.text == "iOS 26 and later, macOS 26 and later")
        // The overlap test itself: 15.3 and 15.4 are apart, 16 falls in 15.4 - 18.
        let old = ReleaseRange(iOS: .init(13), through: .init(16), macOS: .init(10, 15), through: .init(13))
        #expect(old.overlaps(RuleSet.appleCode2022.releases!))
        #expect(!RuleSet.beforeIOS17.releases!.overlaps(RuleSet.appleCode2022.releases!))
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
        #expect(RuleSet.beforeIOS17.ipAddressesSubjectToATS == false)
        #expect(RuleSet.beforeIOS17.forwardSecretSuites == RuleSet.documented.forwardSecretSuites)
    }

    @Test func noPlatformOffersWeakSuites() {
        for set in RuleSet.all {
            #expect(!set.platformSuites.contains { name in
                ["_DHE_", "NULL", "EXPORT", "RC4", "CAMELLIA", "ARIA"].contains { name.ianaName.contains($0) }
            }, "\(set.id)")
        }
    }
}

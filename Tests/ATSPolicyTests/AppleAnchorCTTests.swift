import Foundation
import Testing
import TLSFacts
@testable import ATSPolicy

/// Apple's own roots are exempt from the system-root CT requirement (SecPolicyServer.c
/// SecPolicyCheckSystemTrustedCTRequired: "in the system anchor source but not the Apple anchor
/// source"; SecAppleAnchor.c getAnchors), and only they: another system root still needs CT, and
/// NSRequiresCertificateTransparency still asks it of a chain to Apple's root.
@Suite struct AppleAnchorCTTests {
    typealias F = CertificateFixture
    static let appleRootCA = "B0:B1:73:0E:CB:C7:FF:45:05:14:2C:49:F1:29:5E:6E:DA:6B:CA:ED:7E:2C:68:C5:BE:91:B5:A1:10:01:F0:24"

    @Test func applesRootsAreExemptFromTheSystemRootCTRequirement() {
        var root = F.root()
        root.sha256Fingerprint = Self.appleRootCA
        let chain = F.chain(F.leaf(), root: root)
        func ruleIDs(_ chain: [CertificateFacts], requireCT: Bool = false) -> [CertificateRuleID] {
            AppleCertificatePolicy.violations(chain: chain, anchor: .system, at: F.date(2026, 3, 1),
                                              requireCertificateTransparency: requireCT, rules: .documented, path: chain).map(\.rule)
        }
        #expect(!ruleIDs(chain).contains(.certificateTransparency))
        #expect(ruleIDs(chain, requireCT: true).contains(.certificateTransparency))
        #expect(ruleIDs(F.chain(F.leaf())).contains(.certificateTransparency))
        let result = CTPolicy(rules: .documented).evaluate(leaf: F.leaf(), deliveredSCTs: [], anchor: .system, requireCertificateTransparency: false,
                                         at: F.date(2026, 3, 1), anchorFingerprint: Self.appleRootCA)
        #expect(result.verdict == .notRequired && result.reason.contains("Apple's own roots"), "\(result.reason)")
        #expect(AppleAnchors.sha256Fingerprints.count == 5)
    }
}

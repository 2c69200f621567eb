import Testing
@testable import ATSTrust

/// Anchor sources are looked up by fingerprint in one spelling: colons out, hex upper case
/// (TrustStore.normalized, now byte by byte).
@Suite("Fingerprint normalization")
struct FingerprintNormalizationTests {
    @Test func colonsGoAndHexIsUpperCase() {
        #expect(TrustStore.normalized("ab:Cd:0f:9E") == "ABCD0F9E")
        #expect(TrustStore.normalized("ABCD0F9E") == "ABCD0F9E")
        #expect(TrustStore.normalized("") == "")
    }

    @Test func everyBuiltInRootReadsAsItsOwnKey() {
        for root in AppleRootStore.roots {
            let key = TrustStore.normalized(root.sha256)
            #expect(key == String(root.sha256.filter { $0 != ":" }).uppercased())
            #expect(key.utf8.count == 64)
        }
        // The set a trust store takes without decoding the roots is the same keys.
        #expect(AppleRootStore.fingerprints == Set(AppleRootStore.roots.map { TrustStore.normalized($0.sha256) }))
        #expect(AppleRootStore.fingerprints.count == AppleRootStore.roots.count)
    }
}

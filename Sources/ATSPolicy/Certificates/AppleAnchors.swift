/// Apple's own roots, which trustd keeps in its Apple anchor source and exempts from the
/// system-root CT requirement (SecPolicyServer.c SecPolicyCheckSystemTrustedCTRequired: the root
/// must be "in the system anchor source but not the Apple anchor source"). The SHA-256
/// certificate fingerprints of the production anchors of Security-61901.0.87.0.1
/// OSX/utilities/SecAppleAnchor.c `getAnchors` (AppleRootCAHash, AppleRootG2Hash,
/// AppleRootG3Hash, ApplePlatformBackportRSARootG1Hash, ApplePlatformBackportECCRootG1Hash);
/// Apple Root CA, G2 and G3 are in Apple's root store as built in, the Backport roots are not
/// (AppleRootStoreTests checks it).
package enum AppleAnchors {
    package static let sha256Fingerprints: Set<String> = [
        "B0B1730ECBC7FF4505142C49F1295E6EDA6BCAED7E2C68C5BE91B5A11001F024",  // Apple Root CA
        "C2B9B042DD57830E7D117DAC55AC8AE19407D38E41D88F3215BC3A890444A050",  // Apple Root CA - G2
        "63343ABFB89A6A03EBB57E9B3F5FA7BE7C4F5C756F3017B3A8C488C3653E9179",  // Apple Root CA - G3
        "FB3F6CF69467B5FA9FFA2B3B392B6E5E775BBB09C77B6E759E9038E26BBF9049",  // Apple Platform Backport RSA Root CA - G1
        "EDA23B3F224F45E0952F20E4D2B33E000D49C8044C1168DE47B443CD2B3536DC",  // Apple Platform Backport ECC Root CA - G1
    ]

    /// Whether the certificate with this SHA-256 fingerprint (hex, colons or not, any case) is one of Apple's own roots.
    package static func contains(_ fingerprint: String) -> Bool {
        sha256Fingerprints.contains(String(fingerprint.uppercased().filter { $0 != ":" }))
    }
}

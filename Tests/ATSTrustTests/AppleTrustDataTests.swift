import Foundation
import Testing
import TestSupport
import ATSPolicy
import ATSTrust
import OpenSSLSupport
import TLSFacts

/// Apple's own trust tests, run through atsprobe's evaluator (what `cert` runs: ChainTrust, then
/// ChainJudgement with the current rule set): each case is a chain, the anchors as Apple's test
/// sets them up, the host, the date and the result Apple's test asserts (tag
/// Security-61901.0.87.0.1; the test named in each case). The certificates are read from
/// ../shared/data/apple-tests/ (never copied into the project); without them the suite says so
/// and records an issue.
///
/// Where atsprobe and Apple's tests disagree, the case is in `knownDisagreements` with the
/// reason (docs/trust.md, "Apple's trust tests"): the test fails when a disagreement appears or
/// goes away, so the list stays true.
struct AppleCase: Sendable, CustomStringConvertible {
    /// How Apple's test sets up trust.
    enum Anchors: Sendable {
        /// SecTrustSetAnchorCertificates with these certificates.
        case app([String])
        /// setTestRootAsSystem (the root counts as a system root) and SecTrustSetAnchorCertificates
        /// with it: atsprobe's test seam for a system root, and the same certificate as app anchor.
        case systemApp(String)
        /// addTrustSettingsForCert: user trust settings (atsprobe: --ca-file, a user-installed anchor).
        case user([String])
        /// No anchors: the system store (atsprobe: Apple's root store, built in).
        case system
    }

    var name: String
    var chain: [String]
    var anchors: Anchors
    /// The SSL policy's host name; nil: SecPolicyCreateBasicX509 (no name, no SSL rules: only
    /// the chain's trust is compared).
    var host: String?
    /// Seconds since 2001-01-01 (CFAbsoluteTime), as Apple's test writes it.
    var appleDate: Double
    var trusted: Bool
    /// kSecPolicyCheckLeafSPKISHA256 / kSecPolicyCheckCAspkiSHA256 (`cert --pin-leaf-spki`,
    /// `--pin-ca-spki`; NSPinnedDomains' identities).
    var leafPins: [String]?
    var caPins: [String]?

    init(_ name: String, chain: [String], anchors: Anchors, host: String?, appleDate: Double, trusted: Bool,
         leafPins: [String]? = nil, caPins: [String]? = nil) {
        self.name = name
        self.chain = chain
        self.anchors = anchors
        self.host = host
        self.appleDate = appleDate
        self.trusted = trusted
        self.leafPins = leafPins
        self.caPins = caPins
    }

    var description: String { name }
}

@Suite struct AppleTrustDataTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// `shared/data` beside the repository, or beside a folder above it (a worktree under
    /// /work/wt/NAME reads /work/shared/data as /work/main does).
    static let sharedData: URL = {
        var folder = repository.deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = folder.appendingPathComponent("shared/data")
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return repository.deletingLastPathComponent().appendingPathComponent("shared/data")
    }()
    static let certificates = sharedData.appendingPathComponent("apple-tests/trust/certs")

    static let cases: [AppleCase] = [
        // tests/TrustTests/EvaluationTests/SSLPolicyTests.m testSSLPolicyCerts over
        // SecurityTests/ssl-policy-certs/SSLTrustPolicyTest.plist: the leaf alone, the test root as
        // the app's anchor, 2015-09-04, SecPolicyCreateSSL(true, Hostname).
        AppleCase("SSLPolicyTests.testSSLPolicyCerts Test1", chain: ["ssl-policy-certs/InvalidHostnameTest1"], anchors: .app(["ssl-policy-certs/SSLTrustPolicyTestRootCA"]), host: "test.apple.com", appleDate: 463_079_909, trusted: false),
        AppleCase("SSLPolicyTests.testSSLPolicyCerts Test2", chain: ["ssl-policy-certs/InvalidHostnameTest2"], anchors: .app(["ssl-policy-certs/SSLTrustPolicyTestRootCA"]), host: "test.apple.com", appleDate: 463_079_909, trusted: false),
        AppleCase("SSLPolicyTests.testSSLPolicyCerts Test3", chain: ["ssl-policy-certs/ValidHostnameTest3"], anchors: .app(["ssl-policy-certs/SSLTrustPolicyTestRootCA"]), host: "test.apple.com", appleDate: 463_079_909, trusted: false),
        AppleCase("SSLPolicyTests.testSSLPolicyCerts Test4", chain: ["ssl-policy-certs/ValidHostnameTest4"], anchors: .app(["ssl-policy-certs/SSLTrustPolicyTestRootCA"]), host: "test.apple.com", appleDate: 463_079_909, trusted: true),
        AppleCase("SSLPolicyTests.testSSLPolicyCerts Test5", chain: ["ssl-policy-certs/InvalidWildcardTest5Test6"], anchors: .app(["ssl-policy-certs/SSLTrustPolicyTestRootCA"]), host: "test.bad.apple.com", appleDate: 463_079_909, trusted: false),
        AppleCase("SSLPolicyTests.testSSLPolicyCerts Test6", chain: ["ssl-policy-certs/InvalidWildcardTest5Test6"], anchors: .app(["ssl-policy-certs/SSLTrustPolicyTestRootCA"]), host: "test.apple.com", appleDate: 463_079_909, trusted: false),
        AppleCase("SSLPolicyTests.testSSLPolicyCerts Test7", chain: ["ssl-policy-certs/ValidWildcardTest7Test8Test9"], anchors: .app(["ssl-policy-certs/SSLTrustPolicyTestRootCA"]), host: "good.test.apple.com", appleDate: 463_079_909, trusted: true),
        AppleCase("SSLPolicyTests.testSSLPolicyCerts Test8", chain: ["ssl-policy-certs/ValidWildcardTest7Test8Test9"], anchors: .app(["ssl-policy-certs/SSLTrustPolicyTestRootCA"]), host: "test.apple.com", appleDate: 463_079_909, trusted: false),
        AppleCase("SSLPolicyTests.testSSLPolicyCerts Test9", chain: ["ssl-policy-certs/ValidWildcardTest7Test8Test9"], anchors: .app(["ssl-policy-certs/SSLTrustPolicyTestRootCA"]), host: "one.bad.test.apple.com", appleDate: 463_079_909, trusted: false),
        AppleCase("SSLPolicyTests.testSSLPolicyCerts Test10", chain: ["ssl-policy-certs/InvalidWildcardTest10"], anchors: .app(["ssl-policy-certs/SSLTrustPolicyTestRootCA"]), host: "apple.com", appleDate: 463_079_909, trusted: false),
        AppleCase("SSLPolicyTests.testSSLPolicyCerts Test11", chain: ["ssl-policy-certs/InvalidWildcardTest11"], anchors: .app(["ssl-policy-certs/SSLTrustPolicyTestRootCA"]), host: "apple.co.uk", appleDate: 463_079_909, trusted: false),
        AppleCase("SSLPolicyTests.testSSLPolicyCerts Test12", chain: ["ssl-policy-certs/InvalidWildcardTest12"], anchors: .app(["ssl-policy-certs/SSLTrustPolicyTestRootCA"]), host: "test.apple.com", appleDate: 463_079_909, trusted: false),
        AppleCase("SSLPolicyTests.testSSLPolicyCerts Test13", chain: ["ssl-policy-certs/InvalidWildcardTest13Test14"], anchors: .app(["ssl-policy-certs/SSLTrustPolicyTestRootCA"]), host: "apple.com", appleDate: 463_079_909, trusted: false),
        AppleCase("SSLPolicyTests.testSSLPolicyCerts Test14", chain: ["ssl-policy-certs/InvalidWildcardTest13Test14"], anchors: .app(["ssl-policy-certs/SSLTrustPolicyTestRootCA"]), host: "appleseed.com", appleDate: 463_079_909, trusted: false),
        AppleCase("SSLPolicyTests.testSSLPolicyCerts Test15", chain: ["ssl-policy-certs/InvalidWildcardTest15"], anchors: .app(["ssl-policy-certs/SSLTrustPolicyTestRootCA"]), host: "one.bad.apple.com", appleDate: 463_079_909, trusted: false),
        AppleCase("SSLPolicyTests.testSSLPolicyCerts Test16", chain: ["ssl-policy-certs/InvalidEKUTest16"], anchors: .app(["ssl-policy-certs/SSLTrustPolicyTestRootCA"]), host: "test.apple.com", appleDate: 463_079_909, trusted: false),
        AppleCase("SSLPolicyTests.testSSLPolicyCerts Test17", chain: ["ssl-policy-certs/ValidEKUTest17"], anchors: .app(["ssl-policy-certs/SSLTrustPolicyTestRootCA"]), host: "test.apple.com", appleDate: 463_079_909, trusted: true),
        AppleCase("SSLPolicyTests.testSSLPolicyCerts Test18", chain: ["ssl-policy-certs/ValidHostnameTest18Test19Test20"], anchors: .app(["ssl-policy-certs/SSLTrustPolicyTestRootCA"]), host: "test.apple.com.test", appleDate: 463_079_909, trusted: false),
        AppleCase("SSLPolicyTests.testSSLPolicyCerts Test19", chain: ["ssl-policy-certs/ValidHostnameTest18Test19Test20"], anchors: .app(["ssl-policy-certs/SSLTrustPolicyTestRootCA"]), host: "test.apple.com.", appleDate: 463_079_909, trusted: true),
        AppleCase("SSLPolicyTests.testSSLPolicyCerts Test20", chain: ["ssl-policy-certs/ValidHostnameTest18Test19Test20"], anchors: .app(["ssl-policy-certs/SSLTrustPolicyTestRootCA"]), host: ".test.apple.com", appleDate: 463_079_909, trusted: false),
        AppleCase("SSLPolicyTests.testSSLPolicyCerts Test21", chain: ["ssl-policy-certs/ValidHostnameTest21"], anchors: .app(["ssl-policy-certs/SSLTrustPolicyTestRootCA"]), host: "test.apple.com", appleDate: 463_079_909, trusted: false),
        AppleCase("SSLPolicyTests.testSSLPolicyCerts Test22", chain: ["ssl-policy-certs/InvalidHostnameTest22"], anchors: .app(["ssl-policy-certs/SSLTrustPolicyTestRootCA"]), host: "test.apple.com", appleDate: 463_079_909, trusted: false),
        AppleCase("SSLPolicyTests.testSSLPolicyCerts Test23", chain: ["ssl-policy-certs/InvalidHostnameTest23"], anchors: .app(["ssl-policy-certs/SSLTrustPolicyTestRootCA"]), host: "test.apple.com", appleDate: 463_079_909, trusted: false),
        AppleCase("SSLPolicyTests.testSSLPolicyCerts Test24", chain: ["ssl-policy-certs/InvalidHostnameTest24"], anchors: .app(["ssl-policy-certs/SSLTrustPolicyTestRootCA"]), host: "test.apple.com", appleDate: 463_079_909, trusted: false),
        AppleCase("SSLPolicyTests.testSSLPolicyCerts Test25", chain: ["ssl-policy-certs/InvalidWildcardTest25Test26"], anchors: .app(["ssl-policy-certs/SSLTrustPolicyTestRootCA"]), host: "test.apple.com", appleDate: 463_079_909, trusted: false),
        AppleCase("SSLPolicyTests.testSSLPolicyCerts Test26", chain: ["ssl-policy-certs/InvalidWildcardTest25Test26"], anchors: .app(["ssl-policy-certs/SSLTrustPolicyTestRootCA"]), host: "est.apple.com", appleDate: 463_079_909, trusted: false),
        AppleCase("SSLPolicyTests.testSSLPolicyCerts Test27", chain: ["ssl-policy-certs/InvalidWildcardTest27Test28"], anchors: .app(["ssl-policy-certs/SSLTrustPolicyTestRootCA"]), host: "test.apple.com", appleDate: 463_079_909, trusted: false),
        AppleCase("SSLPolicyTests.testSSLPolicyCerts Test28", chain: ["ssl-policy-certs/InvalidWildcardTest27Test28"], anchors: .app(["ssl-policy-certs/SSLTrustPolicyTestRootCA"]), host: "tes.apple.com", appleDate: 463_079_909, trusted: false),
        AppleCase("SSLPolicyTests.testSSLPolicyCerts Test29", chain: ["ssl-policy-certs/ValidHostnameTest3"], anchors: .app(["ssl-policy-certs/SSLTrustPolicyTestRootCA"]), host: "TEST.apple.com", appleDate: 463_079_909, trusted: false),
        AppleCase("SSLPolicyTests.testSSLPolicyCerts Test30", chain: ["ssl-policy-certs/InvalidWildcardTest30"], anchors: .app(["ssl-policy-certs/SSLTrustPolicyTestRootCA"]), host: "apple", appleDate: 463_079_909, trusted: false),
        AppleCase("SSLPolicyTests.testSSLPolicyCerts Test31", chain: ["ssl-policy-certs/InvalidWildcardTest31"], anchors: .app(["ssl-policy-certs/SSLTrustPolicyTestRootCA"]), host: "apple.com", appleDate: 463_079_909, trusted: false),
        AppleCase("SSLPolicyTests.testSSLPolicyCerts Test32", chain: ["ssl-policy-certs/InvalidWildcardTest32"], anchors: .app(["ssl-policy-certs/SSLTrustPolicyTestRootCA"]), host: "test.apple.com", appleDate: 463_079_909, trusted: false),
        AppleCase("SSLPolicyTests.testSSLPolicyCerts Test33", chain: ["ssl-policy-certs/InvalidWildcardTest33"], anchors: .app(["ssl-policy-certs/SSLTrustPolicyTestRootCA"]), host: "apple", appleDate: 463_079_909, trusted: false),
        AppleCase("SSLPolicyTests.testSSLPolicyCerts Test34", chain: ["ssl-policy-certs/InvalidWildcardTest34"], anchors: .app(["ssl-policy-certs/SSLTrustPolicyTestRootCA"]), host: "apple", appleDate: 463_079_909, trusted: false),
        AppleCase("SSLPolicyTests.testSSLPolicyCerts Test35", chain: ["ssl-policy-certs/InvalidWildcardTest30"], anchors: .app(["ssl-policy-certs/SSLTrustPolicyTestRootCA"]), host: "apple.com", appleDate: 463_079_909, trusted: false),
        AppleCase("SSLPolicyTests.testSSLPolicyCerts Test36", chain: ["ssl-policy-certs/InvalidWildcardTest33"], anchors: .app(["ssl-policy-certs/SSLTrustPolicyTestRootCA"]), host: "apple.com", appleDate: 463_079_909, trusted: false),
        AppleCase("SSLPolicyTests.testSSLPolicyCerts Test37", chain: ["ssl-policy-certs/InvalidWildcardTest34"], anchors: .app(["ssl-policy-certs/SSLTrustPolicyTestRootCA"]), host: "apple.com", appleDate: 463_079_909, trusted: false),
        // SSLPolicyTests.m, 2019-09-12 (590000000), example.com: the leaf's EKU by anchor kind.
        AppleCase("SSLPolicyTests.testSystemTrust_MissingEKU", chain: ["sslpolicy/noEKU_BeforeJul2019", "sslpolicy/EKUTestSSLRoot"], anchors: .systemApp("sslpolicy/EKUTestSSLRoot"), host: "example.com", appleDate: 590_000_000, trusted: false),
        AppleCase("SSLPolicyTests.testSystemTrust_AnyEKU", chain: ["sslpolicy/anyEKU_BeforeJul2019", "sslpolicy/EKUTestSSLRoot"], anchors: .systemApp("sslpolicy/EKUTestSSLRoot"), host: "example.com", appleDate: 590_000_000, trusted: false),
        AppleCase("SSLPolicyTests.testSystemTrust_ServerAuthEKU", chain: ["sslpolicy/serverEKU_BeforeJul2019", "sslpolicy/EKUTestSSLRoot"], anchors: .systemApp("sslpolicy/EKUTestSSLRoot"), host: "example.com", appleDate: 590_000_000, trusted: true),
        AppleCase("SSLPolicyTests.testSystemTrust_subCAMissingEKU", chain: ["ssl-policy-certs/subCA_EKU_noEKU_leaf", "ssl-policy-certs/subCA_EKU_noEKU_ca"], anchors: .systemApp("ssl-policy-certs/subCA_EKU_Root"), host: "example.com", appleDate: 620_000_000, trusted: true),
        AppleCase("SSLPolicyTests.testSystemTrust_subCAAnyEKU", chain: ["ssl-policy-certs/subCA_EKU_anyEKU_leaf", "ssl-policy-certs/subCA_EKU_anyEKU_ca"], anchors: .systemApp("ssl-policy-certs/subCA_EKU_Root"), host: "example.com", appleDate: 620_000_000, trusted: true),
        AppleCase("SSLPolicyTests.testSystemTrust_subCAServerAuthEKU", chain: ["ssl-policy-certs/subCA_EKU_ssl_leaf", "ssl-policy-certs/subCA_EKU_ssl_ca"], anchors: .systemApp("ssl-policy-certs/subCA_EKU_Root"), host: "example.com", appleDate: 620_000_000, trusted: true),
        AppleCase("SSLPolicyTests.testSystemTrust_subCA_SMIME_EKU", chain: ["ssl-policy-certs/subCA_EKU_smime_leaf", "ssl-policy-certs/subCA_EKU_smime_ca"], anchors: .systemApp("ssl-policy-certs/subCA_EKU_Root"), host: "example.com", appleDate: 620_000_000, trusted: false),
        AppleCase("SSLPolicyTests.testAppTrust_subCA_SMIME_EKU", chain: ["ssl-policy-certs/subCA_EKU_smime_leaf", "ssl-policy-certs/subCA_EKU_smime_ca"], anchors: .app(["ssl-policy-certs/subCA_EKU_Root"]), host: "example.com", appleDate: 620_000_000, trusted: false),
        AppleCase("SSLPolicyTests.testAppTrustRoot_AnyEKU_BeforeJul2019", chain: ["sslpolicy/anyEKU_BeforeJul2019", "sslpolicy/EKUTestSSLRoot"], anchors: .app(["sslpolicy/EKUTestSSLRoot"]), host: "example.com", appleDate: 590_000_000, trusted: true),
        AppleCase("SSLPolicyTests.testAppTrustRoot_MissingEKU_AfterJul2019", chain: ["sslpolicy/noEKU_AfterJul2019", "sslpolicy/EKUTestSSLRoot"], anchors: .app(["sslpolicy/EKUTestSSLRoot"]), host: "example.com", appleDate: 590_000_000, trusted: false),
        AppleCase("SSLPolicyTests.testAppTrustRoot_AnyEKU_AfterJul2019", chain: ["sslpolicy/anyEKU_AfterJul2019", "sslpolicy/EKUTestSSLRoot"], anchors: .app(["sslpolicy/EKUTestSSLRoot"]), host: "example.com", appleDate: 590_000_000, trusted: false),
        AppleCase("SSLPolicyTests.testAppTrustRoot_ServerAuthEKU_AfterJul2019", chain: ["sslpolicy/serverEKU_AfterJul2019", "sslpolicy/EKUTestSSLRoot"], anchors: .app(["sslpolicy/EKUTestSSLRoot"]), host: "example.com", appleDate: 590_000_000, trusted: true),
        AppleCase("SSLPolicyTests.testAppTrustLeaf_MissingEKU_AfterJul2019", chain: ["sslpolicy/noEKU_AfterJul2019"], anchors: .app(["sslpolicy/noEKU_AfterJul2019"]), host: "example.com", appleDate: 590_000_000, trusted: false),
        AppleCase("SSLPolicyTests.testUserTrustRoot_MissingEKU_AfterJul2019", chain: ["sslpolicy/noEKU_AfterJul2019", "sslpolicy/EKUTestSSLRoot"], anchors: .user(["sslpolicy/EKUTestSSLRoot"]), host: "example.com", appleDate: 590_000_000, trusted: true),
        AppleCase("SSLPolicyTests.testUserTrustRoot_AnyEKU_AfterJul2019", chain: ["sslpolicy/anyEKU_AfterJul2019", "sslpolicy/EKUTestSSLRoot"], anchors: .user(["sslpolicy/EKUTestSSLRoot"]), host: "example.com", appleDate: 590_000_000, trusted: true),
        AppleCase("SSLPolicyTests.testUserTrustRoot_ServerAuthEKU_AfterJul2019", chain: ["sslpolicy/serverEKU_AfterJul2019", "sslpolicy/EKUTestSSLRoot"], anchors: .user(["sslpolicy/EKUTestSSLRoot"]), host: "example.com", appleDate: 590_000_000, trusted: true),
        AppleCase("SSLPolicyTests.testUserTrustLeaf_MissingEKU_AfterJul2019", chain: ["sslpolicy/noEKU_AfterJul2019"], anchors: .user(["sslpolicy/noEKU_AfterJul2019"]), host: "example.com", appleDate: 590_000_000, trusted: true),
        AppleCase("SSLPolicyTests.testUserTrustLeaf_AnyEKU_AfterJul2019", chain: ["sslpolicy/anyEKU_AfterJul2019"], anchors: .user(["sslpolicy/anyEKU_AfterJul2019"]), host: "example.com", appleDate: 590_000_000, trusted: true),
        AppleCase("SSLPolicyTests.testUserTrustLeaf_ServerAuthEKU_AfterJul2019", chain: ["sslpolicy/serverEKU_AfterJul2019"], anchors: .user(["sslpolicy/serverEKU_AfterJul2019"]), host: "example.com", appleDate: 590_000_000, trusted: true),
        // SSLPolicyTests.m: IP addresses, the certificate as its own app anchor, 2020-01-05 (600000000).
        AppleCase("SSLPolicyTests.testIPAddressInDNSField", chain: ["sslpolicy/ipAddress_dnsField"], anchors: .app(["sslpolicy/ipAddress_dnsField"]), host: "10.0.0.1", appleDate: 600_000_000, trusted: false),
        AppleCase("SSLPolicyTests.testIPAddressInSAN_Match", chain: ["sslpolicy/ipAddress_SAN"], anchors: .app(["sslpolicy/ipAddress_SAN"]), host: "10.0.0.1", appleDate: 600_000_000, trusted: true),
        AppleCase("SSLPolicyTests.testIPAddressInSAN_Mismatch", chain: ["sslpolicy/ipAddress_SAN"], anchors: .app(["sslpolicy/ipAddress_SAN"]), host: "10.0.0.2", appleDate: 600_000_000, trusted: false),
        AppleCase("SSLPolicyTests.testIPAddressInCN", chain: ["sslpolicy/ipAddress_CN"], anchors: .app(["sslpolicy/ipAddress_CN"]), host: "10.0.0.1", appleDate: 600_000_000, trusted: false),
        AppleCase("SSLPolicyTests.testBadIPAddressInSAN", chain: ["sslpolicy/ipAddress_bad"], anchors: .app(["sslpolicy/ipAddress_bad"]), host: "10.0.0.1", appleDate: 600_000_000, trusted: false),
        // KeySizeTests.m: 2019-04-26 (578000000), example.com; system trust 2016-11-05 (500000000), www.badssl.com.
        AppleCase("KeySizeTests.test1024_appTrustedLeaf", chain: ["keysize/leaf1024SSL"], anchors: .app(["keysize/rootSSL"]), host: "example.com", appleDate: 578_000_000, trusted: false),
        AppleCase("KeySizeTests.test1024_trustSettingsOnRoot_TestLeaf", chain: ["keysize/leaf1024SSL", "keysize/rootSSL"], anchors: .user(["keysize/rootSSL"]), host: "example.com", appleDate: 578_000_000, trusted: false),
        AppleCase("KeySizeTests.test1024_trustSettingsOnLeaf", chain: ["keysize/leaf1024SSL"], anchors: .user(["keysize/leaf1024SSL"]), host: "example.com", appleDate: 578_000_000, trusted: true),
        AppleCase("KeySizeTests.test2048_systemTrusted", chain: ["keysize/leaf2048SystemTrust", "keysize/int2048SystemTrust"], anchors: .system, host: "www.badssl.com", appleDate: 500_000_000, trusted: true),
        AppleCase("KeySizeTests.test2048_appTrustedLeaf", chain: ["keysize/leaf2048SSL"], anchors: .app(["keysize/rootSSL"]), host: "example.com", appleDate: 578_000_000, trusted: true),
        AppleCase("KeySizeTests.test2048_trustSettingsOnRoot_TestLeaf", chain: ["keysize/leaf2048SSL", "keysize/rootSSL"], anchors: .user(["keysize/rootSSL"]), host: "example.com", appleDate: 578_000_000, trusted: true),
        AppleCase("KeySizeTests.test2048_trustSettingsOnLeaf", chain: ["keysize/leaf2048SSL"], anchors: .user(["keysize/leaf2048SSL"]), host: "example.com", appleDate: 578_000_000, trusted: true),
        // SignatureAlgorithmTests.m (SSL server policy cases only).
        AppleCase("SignatureAlgorithmTests.testSHA1_systemTrusted", chain: ["sigalg/badssl_sha1", "sigalg/digiCertSSCA"], anchors: .system, host: "www.badssl.com", appleDate: 500_000_000, trusted: false),
        AppleCase("SignatureAlgorithmTests.testSHA1_appTrustedLeaf", chain: ["sigalg/badssl_sha1", "sigalg/digiCertSSCA"], anchors: .app(["sigalg/digiCertRoot"]), host: "www.badssl.com", appleDate: 500_000_000, trusted: false),
        AppleCase("SignatureAlgorithmTests.testSHA1_appTrustedSelfSigned", chain: ["sigalg/testSHA1SelfSigned"], anchors: .app(["sigalg/testSHA1SelfSigned"]), host: "example.com", appleDate: 578_000_000, trusted: true),
        AppleCase("SignatureAlgorithmTests.testSHA1_trustSettingsOnRoot_TestLeaf", chain: ["sigalg/testSHA1Leaf", "sigalg/testRoot"], anchors: .user(["sigalg/testRoot"]), host: "example.com", appleDate: 578_000_000, trusted: false),
        AppleCase("SignatureAlgorithmTests.testSHA1_trustSettingsOnLeaf", chain: ["sigalg/testSHA1Leaf"], anchors: .user(["sigalg/testSHA1Leaf"]), host: "example.com", appleDate: 578_000_000, trusted: true),
        AppleCase("SignatureAlgorithmTests.testSHA1_trustSettingsSelfSigned", chain: ["sigalg/testSHA1SelfSigned"], anchors: .user(["sigalg/testSHA1SelfSigned"]), host: "example.com", appleDate: 578_000_000, trusted: true),
        AppleCase("SignatureAlgorithmTests.testSHA2_systemTrusted", chain: ["sigalg/badssl_sha2", "sigalg/COMODO_DV"], anchors: .system, host: "www.badssl.com", appleDate: 500_000_000, trusted: true),
        AppleCase("SignatureAlgorithmTests.testSHA2_appTrustedLeaf", chain: ["sigalg/badssl_sha2", "sigalg/COMODO_DV"], anchors: .app(["sigalg/COMODO_root"]), host: "www.badssl.com", appleDate: 500_000_000, trusted: true),
        AppleCase("SignatureAlgorithmTests.testSHA2_appTrustedSelfSigned", chain: ["sigalg/testSHA2SelfSigned"], anchors: .app(["sigalg/testSHA2SelfSigned"]), host: "example.com", appleDate: 578_000_000, trusted: true),
        AppleCase("SignatureAlgorithmTests.testSHA2_trustSettingsOnRoot_TestLeaf", chain: ["sigalg/testSHA2Leaf", "sigalg/testRoot"], anchors: .user(["sigalg/testRoot"]), host: "example.com", appleDate: 578_000_000, trusted: true),
        AppleCase("SignatureAlgorithmTests.testSHA2_trustSettingsOnLeaf", chain: ["sigalg/testSHA2Leaf"], anchors: .user(["sigalg/testSHA2Leaf"]), host: "example.com", appleDate: 578_000_000, trusted: true),
        AppleCase("SignatureAlgorithmTests.testSHA2_trustSettingsSelfSigned", chain: ["sigalg/testSHA2SelfSigned"], anchors: .user(["sigalg/testSHA2SelfSigned"]), host: "example.com", appleDate: 578_000_000, trusted: true),
        // VerifyDateTests.m ValidityPeriodRestrictionTests: 2019-09-12 (590000000) unless noted, example.com.
        AppleCase("ValidityPeriodRestrictionTests.testSystemTrust_LessThan5Years_BeforeJul2016", chain: ["validity/testLeaf_5Years"], anchors: .systemApp("validity/testValidityPeriodsRoot"), host: "example.com", appleDate: 590_000_000, trusted: true),
        AppleCase("ValidityPeriodRestrictionTests.testSystemTrust_LessThan39Months_BeforeMar2018", chain: ["validity/testLeaf_39Months"], anchors: .systemApp("validity/testValidityPeriodsRoot"), host: "example.com", appleDate: 590_000_000, trusted: true),
        AppleCase("ValidityPeriodRestrictionTests.testSystemTrust_MoreThan825Days_AfterMar2018", chain: ["validity/testLeaf_3Years"], anchors: .systemApp("validity/testValidityPeriodsRoot"), host: "example.com", appleDate: 590_000_000, trusted: false),
        AppleCase("ValidityPeriodRestrictionTests.testSystemTrust_LessThan825Days_AfterMar2018", chain: ["validity/testLeaf_825Days"], anchors: .systemApp("validity/testValidityPeriodsRoot"), host: "example.com", appleDate: 590_000_000, trusted: true),
        AppleCase("ValidityPeriodRestrictionTests.testSystemTrust_MoreThan398Days_AfterSep2020", chain: ["validity/testLeaf_2Years"], anchors: .systemApp("validity/testValidityPeriodsRoot"), host: "example.com", appleDate: 621_000_000, trusted: false),
        AppleCase("ValidityPeriodRestrictionTests.testSystemTrust_398Days_AfterSep2020", chain: ["validity/testLeaf_398Days"], anchors: .systemApp("validity/testValidityPeriodsRoot"), host: "example.com", appleDate: 621_000_000, trusted: true),
        AppleCase("ValidityPeriodRestrictionTests.testAppTrustRoot_MoreThan825Days_AfterJul2019", chain: ["validity/testLeaf_3Years"], anchors: .app(["validity/testValidityPeriodsRoot"]), host: "example.com", appleDate: 590_000_000, trusted: false),
        AppleCase("ValidityPeriodRestrictionTests.testAppTrustRoot_MoreThan825Days_BeforeJul2019", chain: ["validity/testLeaf_66Months"], anchors: .app(["validity/testValidityPeriodsRoot"]), host: "example.com", appleDate: 590_000_000, trusted: true),
        AppleCase("ValidityPeriodRestrictionTests.testAppTrustRoot_LessThan825Days_AfterJul2019", chain: ["validity/testLeaf_825Days"], anchors: .app(["validity/testValidityPeriodsRoot"]), host: "example.com", appleDate: 590_000_000, trusted: true),
        AppleCase("ValidityPeriodRestrictionTests.testAppTrustLeaf_MoreThan825Days_AfterJul2019", chain: ["validity/testLeaf_3Years"], anchors: .app(["validity/testLeaf_3Years"]), host: "example.com", appleDate: 590_000_000, trusted: false),
        AppleCase("ValidityPeriodRestrictionTests.testAppTrustLeaf_MoreThan825Days_BeforeJul2019", chain: ["validity/testLeaf_66Months"], anchors: .app(["validity/testLeaf_66Months"]), host: "example.com", appleDate: 590_000_000, trusted: true),
        AppleCase("ValidityPeriodRestrictionTests.testAppTrustLeaf_LessThan825Days_AfterJul2019", chain: ["validity/testLeaf_825Days"], anchors: .app(["validity/testLeaf_825Days"]), host: "example.com", appleDate: 590_000_000, trusted: true),
        AppleCase("ValidityPeriodRestrictionTests.testUserTrustRoot_MoreThan825Days_AfterJul2019", chain: ["validity/testLeaf_3Years", "validity/testValidityPeriodsRoot"], anchors: .user(["validity/testValidityPeriodsRoot"]), host: "example.com", appleDate: 590_000_000, trusted: false),
        AppleCase("ValidityPeriodRestrictionTests.testUserTrustRoot_MoreThan825Days_BeforeJul2019", chain: ["validity/testLeaf_66Months", "validity/testValidityPeriodsRoot"], anchors: .user(["validity/testValidityPeriodsRoot"]), host: "example.com", appleDate: 590_000_000, trusted: true),
        AppleCase("ValidityPeriodRestrictionTests.testUserTrustRoot_LessThan825Days_AfterJul2019", chain: ["validity/testLeaf_825Days", "validity/testValidityPeriodsRoot"], anchors: .user(["validity/testValidityPeriodsRoot"]), host: "example.com", appleDate: 590_000_000, trusted: true),
        AppleCase("ValidityPeriodRestrictionTests.testUserTrustLeaf_MoreThan825Days_AfterJul2019", chain: ["validity/testLeaf_3Years"], anchors: .user(["validity/testLeaf_3Years"]), host: "example.com", appleDate: 590_000_000, trusted: true),
        AppleCase("ValidityPeriodRestrictionTests.testUserTrustLeaf_MoreThan825Days_BeforeJul2019", chain: ["validity/testLeaf_66Months"], anchors: .user(["validity/testLeaf_66Months"]), host: "example.com", appleDate: 590_000_000, trusted: true),
        AppleCase("ValidityPeriodRestrictionTests.testUserTrustLeaf_LessThan825Days_AfterJul2019", chain: ["validity/testLeaf_825Days"], anchors: .user(["validity/testLeaf_825Days"]), host: "example.com", appleDate: 590_000_000, trusted: true),
        // NameConstraintsTests.m (SecPolicyCreateBasicX509: no host), name constraints in the sub-CA.
        AppleCase("NameConstraintsTests.testIntersectingConstraintsInSubCA", chain: ["nameconstraints/test_leaf1", "nameconstraints/test_intermediate"], anchors: .app(["nameconstraints/test_root"]), host: nil, appleDate: 517_282_600, trusted: true),
        AppleCase("NameConstraintsTests.testUserAnchorWithNameConstraintsPass", chain: ["nameconstraints/test_leaf1", "nameconstraints/test_intermediate"], anchors: .user(["nameconstraints/test_intermediate"]), host: nil, appleDate: 517_282_600, trusted: true),
        AppleCase("NameConstraintsTests.testAppAnchorWithNameConstraintsPass", chain: ["nameconstraints/test_leaf1", "nameconstraints/test_intermediate"], anchors: .app(["nameconstraints/test_intermediate"]), host: nil, appleDate: 517_282_600, trusted: true),
        AppleCase("NameConstraintsTests.testUserAnchorWithNameConstraintsFail", chain: ["nameconstraints/test_leaf4", "nameconstraints/test_intermediate"], anchors: .user(["nameconstraints/test_intermediate"]), host: nil, appleDate: 578_000_000, trusted: false),
        AppleCase("NameConstraintsTests.testAppAnchorwithNameContraintsFail", chain: ["nameconstraints/test_leaf4", "nameconstraints/test_intermediate"], anchors: .app(["nameconstraints/test_intermediate"]), host: nil, appleDate: 578_000_000, trusted: false),
        // PolicyTests.m testPinningPolicies over si-20-sectrust-policies-data/PinningPolicyTrustTest.plist:
        // the SSL server policy cases (PolicyIdentifier 1.2.840.113635.100.1.3, the plist's index in
        // brackets); Anchors are SecTrustSetAnchorCertificates; ExpectedResult 4 trusts, 5 does not.
        AppleCase("PolicyTests.testPinningPolicies AppleCorporate-NegativeTest-SSLServer (32)", chain: ["si-20/apple_corp_vpn_client", "si-20/AppleCorporateVPNClientCA"], anchors: .app(["si-20/AppleCorporateRootCA"]), host: "com.apple.ist.ds.appleconnect2.production.vpn.8F2B3ADCD72ED2EA08DDC26AD0255A983B1DEBEB", appleDate: 427575600, trusted: false),
        AppleCase("PolicyTests.testPinningPolicies TLDWildcard-PositiveTest-CookieTLD (94)", chain: ["si-20/googleapis", "si-20/GoogleTrustServicesCA101"], anchors: .app(["si-20/GlobalSignRootCAR2"]), host: "content.googleapis.com", appleDate: 595454400, trusted: true),
        AppleCase("PolicyTests.testPinningPolicies FakeDOD-PolicyMappings (97)", chain: ["si-20/FakeDODLeaf", "si-20/FakeFederalBridgeCA", "si-20/FakeDODInteroperability", "si-20/FakeDODRootCA3", "si-20/FakeDODIDSWCA37"], anchors: .app(["si-20/FakeFederalCommonPolicy"]), host: "tlstest.com", appleDate: 503037480, trusted: true),
        AppleCase("PolicyTests.testPinningPolicies FakeDOD-NoRequireExplicitPoliciesConstraint (98)", chain: ["si-20/FakeDODLeaf", "si-20/FakeFederalBridgeCA", "si-20/FakeDODInteroperability-noRequireExplicitPolicies", "si-20/FakeDODRootCA3-noRequireExplicitPolicies", "si-20/FakeDODIDSWCA37-noRequireExplicitPolicies"], anchors: .app(["si-20/FakeFederalCommonPolicy"]), host: "tlstest.com", appleDate: 503037480, trusted: true),
        AppleCase("PolicyTests.testPinningPolicies FakeDOD-ExtraPolicies (99)", chain: ["si-20/FakeDODLeaf", "si-20/FakeFederalBridgeCA-extraPolicies", "si-20/FakeDODInteroperability-extraPolicies", "si-20/FakeDODRootCA3", "si-20/FakeDODIDSWCA37"], anchors: .app(["si-20/FakeFederalCommonPolicy"]), host: "tlstest.com", appleDate: 503037480, trusted: true),
        AppleCase("PolicyTests.testPinningPolicies Systemwide-Baseline-IDS-Prod (101)", chain: ["si-20/ids_test", "si-20/TestAppleServerAuthentication"], anchors: .app(["si-20/TestAppleRootCA"]), host: "init.ess.apple.com", appleDate: 621820800, trusted: true),
        AppleCase("PolicyTests.testPinningPolicies Systemwide-Baseline-IDS-PublicTrust (102)", chain: ["si-20/ids_init_public", "si-20/ApplePublicServerRSA12-G1"], anchors: .app(["si-20/AAACertificateServices"]), host: "pds-init.ess.apple.com", appleDate: 621820800, trusted: true),
        AppleCase("PolicyTests.testPinningPolicies Systemwide-Hostname-IDS-PositiveTest (103)", chain: ["si-20/ids_test", "si-20/TestAppleServerAuthentication"], anchors: .app(["si-20/TestAppleRootCA"]), host: "identity.ess.apple.com", appleDate: 621820800, trusted: true),
        AppleCase("PolicyTests.testPinningPolicies Systemwide-Hostname-Updates-NegativeTest (104)", chain: ["si-20/updates-EV", "si-20/DigiCertSHA2EV"], anchors: .app(["si-20/DigiCertEVRoot"]), host: "updates.cdn-apple.com", appleDate: 549504000, trusted: false),
        AppleCase("PolicyTests.testPinningPolicies Systemwide-Hostname-Updates-NegativeTest-TrailingDot (105)", chain: ["si-20/updates-EV", "si-20/DigiCertSHA2EV"], anchors: .app(["si-20/DigiCertEVRoot"]), host: "updates.cdn-apple.com.", appleDate: 549504000, trusted: false),
        AppleCase("PolicyTests.testPinningPolicies Systemwide-PolicyName-IDS-PositiveTest (106)", chain: ["si-20/ids_test", "si-20/TestAppleServerAuthentication"], anchors: .app(["si-20/TestAppleRootCA"]), host: "init.ess.apple.com", appleDate: 621820800, trusted: true),
        AppleCase("PolicyTests.testPinningPolicies Systemwide-PolicyName-IDS-NegativeTest (107)", chain: ["si-20/ids_init_public", "si-20/ApplePublicServerRSA12-G1"], anchors: .app(["si-20/AAACertificateServices"]), host: "pds-init.ess.apple.com", appleDate: 621820800, trusted: false),
        AppleCase("PolicyTests.testPinningPolicies Systemwide-Both-IDS-PositiveTest (108)", chain: ["si-20/ids_test", "si-20/TestAppleServerAuthentication"], anchors: .app(["si-20/TestAppleRootCA"]), host: "identity.ess.apple.com", appleDate: 621820800, trusted: true),
        AppleCase("PolicyTests.testPinningPolicies Systemwide-Both-Updates-NegativeTest (109)", chain: ["si-20/updates-EV", "si-20/DigiCertSHA2EV"], anchors: .app(["si-20/DigiCertEVRoot"]), host: "updates.cdn-apple.com", appleDate: 549504000, trusted: false),
        AppleCase("PolicyTests.testPinningPolicies Systemwide-ckdatabasews-PositiveTest (113)", chain: ["si-20/ckdatabasews", "si-20/AppleISTCA2G1"], anchors: .app(["si-20/AppleRootCA", "si-20/GeoTrustGlobalCA"]), host: "p62-ckdatabasews.icloud.com", appleDate: 675734400, trusted: true),
        AppleCase("PolicyTests.testPinningPolicies Systemwide-Both-Precedence (114)", chain: ["si-20/ids_test", "si-20/TestAppleServerAuthentication"], anchors: .app(["si-20/TestAppleRootCA"]), host: "identity.ess.apple.com", appleDate: 621820800, trusted: false),
        AppleCase("PolicyTests.testPinningPolicies ISTCrossSign-PositiveTest (134)", chain: ["si-20/ckdatabasews", "si-20/AppleISTCA2G1-Baltimore"], anchors: .app(["si-20/BaltimoreCyberTrustRoot"]), host: "p02-ckdatabasews.icloud.com", appleDate: 675734400, trusted: true),
        AppleCase("PolicyTests.testPinningPolicies ISTCrossSignCA8Baltimore-PositiveTest (135)", chain: ["si-20/itunes", "si-20/AppleISTCA8G1-Baltimore"], anchors: .app(["si-20/BaltimoreCyberTrustRoot"]), host: "hls-slive.itunes.apple.com", appleDate: 581040000, trusted: true),
        AppleCase("PolicyTests.testPinningPolicies ISTCrossSignCA8DigiCert-PositiveTest (136)", chain: ["si-20/itunes", "si-20/AppleISTCA8G1-DigiCert"], anchors: .app(["si-20/DigiCertGlobalRootG3"]), host: "hls-slive.itunes.apple.com", appleDate: 581040000, trusted: true),
        AppleCase("PolicyTests.testPinningPolicies ISTCrossSign-BothPositiveTest (137)", chain: ["si-20/ckdatabasews", "si-20/AppleISTCA2G1-Baltimore", "si-20/AppleISTCA2G1"], anchors: .app(["si-20/AppleRootCA", "si-20/GeoTrustGlobalCA"]), host: "p02-ckdatabasews.icloud.com", appleDate: 675734400, trusted: true),
        AppleCase("PolicyTests.testPinningPolicies ISTCrossSign-BothPositiveTest (138)", chain: ["si-20/ckdatabasews", "si-20/AppleISTCA2G1-Baltimore", "si-20/AppleISTCA2G1"], anchors: .app(["si-20/BaltimoreCyberTrustRoot"]), host: "p02-ckdatabasews.icloud.com", appleDate: 675734400, trusted: true),
        AppleCase("PolicyTests.testPinningPolicies ValidPolicyConstraints-SSLCA-SSLServerLeaf (141)", chain: ["si-20/Valid-leaf-serial+invalid+policyssl+complete-ssl", "si-20/Valid-ca-serial+invalid+policyssl+complete"], anchors: .app(["si-20/Valid-root"]), host: "validssl.apple.geoffk.net", appleDate: 573148800, trusted: true),
        AppleCase("PolicyTests.testPinningPolicies kSecPolicyCheckLeafSPKISHA256-leaf-good (147)", chain: ["si-20/ids_test", "si-20/TestAppleServerAuthentication"], anchors: .app(["si-20/TestAppleRootCA"]), host: "init.ess.apple.com", appleDate: 621820800, trusted: true, leafPins: ["QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUE=", "+GxzfmXKLWfWePjBrbCey6zjhsMU/KtGFQExWAnFJeQ="]),
        AppleCase("PolicyTests.testPinningPolicies kSecPolicyCheckLeafSPKISHA256-leaf-empty (148)", chain: ["si-20/ids_test", "si-20/TestAppleServerAuthentication"], anchors: .app(["si-20/TestAppleRootCA"]), host: "init.ess.apple.com", appleDate: 621820800, trusted: false, leafPins: []),
        AppleCase("PolicyTests.testPinningPolicies kSecPolicyCheckLeafSPKISHA256-leaf-bad (149)", chain: ["si-20/ids_test", "si-20/TestAppleServerAuthentication"], anchors: .app(["si-20/TestAppleRootCA"]), host: "init.ess.apple.com", appleDate: 621820800, trusted: false, leafPins: ["QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUE="]),
        AppleCase("PolicyTests.testPinningPolicies kSecPolicyCheckCAspkiSHA256-intermediate-good (150)", chain: ["si-20/ids_test", "si-20/TestAppleServerAuthentication"], anchors: .app(["si-20/TestAppleRootCA"]), host: "init.ess.apple.com", appleDate: 621820800, trusted: true, caPins: ["QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUE=", "Yc/8PBtv5TPVDELtY0SUFd5zObsSVVzm7WbLz5eIpQM="]),
        AppleCase("PolicyTests.testPinningPolicies kSecPolicyCheckCAspkiSHA256-intermediate-empty (151)", chain: ["si-20/ids_test", "si-20/TestAppleServerAuthentication"], anchors: .app(["si-20/TestAppleRootCA"]), host: "init.ess.apple.com", appleDate: 621820800, trusted: false, caPins: []),
        AppleCase("PolicyTests.testPinningPolicies kSecPolicyCheckCAspkiSHA256-intermediate-bad (152)", chain: ["si-20/ids_test", "si-20/TestAppleServerAuthentication"], anchors: .app(["si-20/TestAppleRootCA"]), host: "init.ess.apple.com", appleDate: 621820800, trusted: false, caPins: ["QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUE="]),
        AppleCase("PolicyTests.testPinningPolicies kSecPolicyCheckCAspkiSHA256-leaf-good-intermediate-good-root-good (153)", chain: ["si-20/ids_test", "si-20/TestAppleServerAuthentication"], anchors: .app(["si-20/TestAppleRootCA"]), host: "init.ess.apple.com", appleDate: 621820800, trusted: true, leafPins: ["QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUE=", "+GxzfmXKLWfWePjBrbCey6zjhsMU/KtGFQExWAnFJeQ="], caPins: ["QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUE=", "Yc/8PBtv5TPVDELtY0SUFd5zObsSVVzm7WbLz5eIpQM=", "QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUE=", "pmuYhKz98VG4gaGpUvi3y7CEl5+yJNGQ8/ARWg4FVnw="]),
        AppleCase("PolicyTests.testPinningPolicies kSecPolicyCheckCAspkiSHA256-leaf-bad-intermediate-good-root-good (154)", chain: ["si-20/ids_test", "si-20/TestAppleServerAuthentication"], anchors: .app(["si-20/TestAppleRootCA"]), host: "init.ess.apple.com", appleDate: 621820800, trusted: false, leafPins: ["QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUE="], caPins: ["QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUE=", "Yc/8PBtv5TPVDELtY0SUFd5zObsSVVzm7WbLz5eIpQM=", "QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUE=", "pmuYhKz98VG4gaGpUvi3y7CEl5+yJNGQ8/ARWg4FVnw="]),
    ]

    /// Cases where atsprobe's answer differs from Apple's test, each with the reason
    /// (docs/trust.md, "Apple's trust tests").
    static let knownDisagreements: [String: String] = [
        "PolicyTests.testPinningPolicies Systemwide-Hostname-IDS-PositiveTest (103)": "Apple's test trusts init.ess.apple.com's test chain to TestAppleRootCA under the IDS pinning policy, whose every rule asks AnchorApple; SecPolicyServer.c SecPolicyCheckAnchorApple calls SecIsAppleTrustAnchor with flags 0, which holds the production roots only (SecAppleAnchor.c getAnchors), so the test passes only under Apple's internal test configuration of the pinning database; a customer device (and atsprobe) refuses the chain for that host",
        "PolicyTests.testPinningPolicies Systemwide-Both-IDS-PositiveTest (108)": "Apple's test trusts init.ess.apple.com's test chain to TestAppleRootCA under the IDS pinning policy, whose every rule asks AnchorApple; SecPolicyServer.c SecPolicyCheckAnchorApple calls SecIsAppleTrustAnchor with flags 0, which holds the production roots only (SecAppleAnchor.c getAnchors), so the test passes only under Apple's internal test configuration of the pinning database; a customer device (and atsprobe) refuses the chain for that host",
    ]

    /// Cases whose test sets DisableCT (PolicyTests.m: the CT requirement is off for the
    /// evaluation): CT is left out of their comparison, and only of theirs.
    static let ctDisabled: Set<String> = [
        "PolicyTests.testPinningPolicies Systemwide-Baseline-IDS-PublicTrust (102)",
        "PolicyTests.testPinningPolicies ISTCrossSign-PositiveTest (134)",
        "PolicyTests.testPinningPolicies ISTCrossSignCA8Baltimore-PositiveTest (135)",
        "PolicyTests.testPinningPolicies ISTCrossSignCA8DigiCert-PositiveTest (136)",
        "PolicyTests.testPinningPolicies ISTCrossSign-BothPositiveTest (137)",
        "PolicyTests.testPinningPolicies ISTCrossSign-BothPositiveTest (138)",
    ]

    /// Apple's cases in these folders that are not run, each with why (docs/trust.md).
    static let notRun: [String: String] = [
        "PolicyTests.testPinningPolicies AppleCorporate-PositiveTest-SSLClient (33)": "SSL client policy (SecPolicyClient): atsprobe judges servers",
        "PolicyTests.testPinningPolicies SSLClient-NegativeTest (131)": "SSL client policy (SecPolicyClient): atsprobe judges servers",
        "CTTests.m (folder ct/)": "not transcribed in this change: the cases set Apple's test CT logs (SecTrustSetTrustedLogs; ../shared/data/apple-tests/trust/ct/apple-test-logs.json), mark a test root as CT-requiring by configuration (TestCTRequiredSystemRoot), and present SCT proofs and OCSP responses that are not in the shared data",
        "AllowlistBlocklistTests.m (folder allowlist/)": "not transcribed in this change: the allow-list cases need Apple's allow-list asset for a test root, which is not in the shared data",
        "NISTTests.m (folder pkits/)": "not transcribed in this change: NIST PKITS under SecPolicyCreateBasicX509 with initial policy sets and CRLs (trustd takes CRLs only from its own revocation database), 359 certificates",
        "NameConstraintsTests.m testNameConstraintsPlist and the unsupported_nc cases (folder nameconstraints/)": "not transcribed in this change: driven by Apple's NameConstraints plist (not in the shared data); the unsupported critical form is covered by x509-limbo nc-forbids-othername-noop instead",
    ]

    static func path(_ name: String) -> String { certificates.appendingPathComponent(name + ".pem").path }

    static func pem(_ name: String) throws -> String { try String(contentsOfFile: path(name), encoding: .utf8) }

    /// The anchors of `setup` as AnchorConfiguration takes them (files written to `directory`).
    static func configuration(_ setup: AppleCase.Anchors, directory: URL) throws -> AnchorConfiguration {
        func bundle(_ names: [String]) throws -> String {
            let file = directory.appendingPathComponent("anchors-\(UUID().uuidString).pem").path
            try Data(try names.map(pem).joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: file))
            return file
        }
        switch setup {
        case .app(let names): return AnchorConfiguration(appAnchorFile: try bundle(names))
        case .systemApp(let name):
            let file = try bundle([name])
            return AnchorConfiguration(additionalSystemAnchorsFile: file, appAnchorFile: file)
        case .user(let names): return AnchorConfiguration(caFile: try bundle(names))
        case .system: return AnchorConfiguration()
        }
    }

    /// What atsprobe's `cert` path says of one case.
    static func judge(_ test: AppleCase, directory: URL) async throws -> ChainJudgement {
        let anchors = try configuration(test.anchors, directory: directory)
        let date = Date(timeIntervalSinceReferenceDate: test.appleDate)
        let trust = ChainTrust(store: try TrustStore(options: anchors), anchors: anchors, date: date,
                               verifier: SCTVerifier(keys: CTLogList.apple.keys), evaluations: TrustEvaluationCache())
        let served = try test.chain.map { ServedCertificate(try X509Certificate(pem: try pem($0))) }
        let (chain, evaluation) = await trust.judge(served: served, name: test.host, source: nil, policy: nil, fetchedIssuer: { _ in nil })
        let judgement = ChainJudgement(given: chain.map(\.facts), trust: evaluation, name: test.host ?? "",
                                       rules: RuleSet.current.certificateRules, logs: .apple)
        guard test.leafPins != nil || test.caPins != nil else { return judgement }
        return judgement.applying(pins: PinSet(caIdentities: test.caPins, leafIdentities: test.leafPins))
    }

    @Test func applesTrustTestsAgreeExceptTheKnownCases() async throws {
        guard FileManager.default.fileExists(atPath: Self.certificates.path) else {
            Issue.record("Apple's trust-test certificates are not at \(Self.certificates.path) (../shared/data/apple-tests/); these cases were not run")
            return
        }
        let files = try TemporaryDirectory(prefix: "atsprobe-apple-cases")
        defer { files.remove() }
        let directory = files.url
        var disagreements: [String: String] = [:]
        for test in Self.cases {
            let judgement = try await Self.judge(test, directory: directory)
            // setTestRootAsSystem configures the root as "TestSystemRoot", which the 398/825-day
            // and EKU checks read (is_configured_test_system_root) and SecPolicyCheckSystemTrustedCTRequired
            // does not (it reads "TestCTRequiredSystemRoot"): Apple's test requires no CT of it.
            // atsprobe's seam is a real system root, for which CT is required; so CT is left out
            // of these cases' comparison, and only of these.
            var failures = judgement.failures.map(\.rule)
            if case .systemApp = test.anchors { failures.removeAll { $0 == "certificate-transparency" } }
            // SecPolicyCreateBasicX509: the chain's trust only, none of the SSL server rules.
            if test.host == nil { failures.removeAll { !$0.hasPrefix("trust.") } }
            if Self.ctDisabled.contains(test.name) { failures.removeAll { $0 == "certificate-transparency" } }
            if failures.isEmpty != test.trusted {
                disagreements[test.name] = "Apple \(test.trusted ? "trusts" : "does not trust"); atsprobe "
                    + (failures.isEmpty ? "trusts" : "fails: " + failures.joined(separator: ", "))
            }
        }
        let report = disagreements.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "\n")
        #expect(Set(disagreements.keys) == Set(Self.knownDisagreements.keys), "disagreements:\n\(report)")
        #expect(Self.cases.count == 133)
        #expect(Self.notRun.count == 6)
    }
}

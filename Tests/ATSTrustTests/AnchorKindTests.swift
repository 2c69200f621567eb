import Foundation
import Testing
import TestSupport
import ATSPolicy
import ATSTestServers
import ATSTrust
import OpenSSLSupport
import TLSFacts

/// Anchor kinds cell by cell (docs/rules.md, "Anchor kinds"), each row after Apple's
/// SecPolicyServer.c: which rules a chain meets depends on where its anchor came from.
@Suite struct AnchorKindTests {
    static let judged = Date(timeIntervalSince1970: 1_748_736_000)  // 2025-06-01
    static let day: TimeInterval = 86_400

    static func judge(_ pems: [String], anchors: AnchorConfiguration, name: String = "anchor.test") async throws -> ChainJudgement {
        let cache = TrustEvaluationCache()
        let trust = ChainTrust(store: try TrustStore(options: anchors), anchors: anchors, date: judged,
                               verifier: SCTVerifier(keys: [:]), evaluations: cache)
        let served = try pems.map { ServedCertificate(try X509Certificate(pem: $0)) }
        let (chain, evaluation) = await trust.judge(served: served, name: name, source: nil, policy: nil, fetchedIssuer: { _ in nil })
        return ChainJudgement(given: chain.map(\.facts), trust: evaluation, name: name,
                              rules: RuleSet.current.certificateRules, logs: .apple)
    }

    static func spec(days: Double, key: TestKey = .ec(curve: .p256), hash: TestSignatureHash = .sha256) -> CertificateSpec {
        CertificateSpec(commonName: "anchor.test", dnsNames: ["anchor.test"], ipAddresses: [], key: key, signatureHash: hash,
                        notBefore: judged.addingTimeInterval(-day), notAfter: judged.addingTimeInterval((days - 1) * day))
    }

    /// User-trusted leaf: a self-signed leaf installed as the user's anchor is exempt from the
    /// lifetime maximums (SecPolicyCheckValidityPeriodMaximums), the key size (SecPolicyCheckKeySize)
    /// and SHA-1 (SecPolicyCheckSignatureHashAlgorithms skips self-signed certificates).
    @Test func userTrustedLeafIsExemptFromLifetimeKeySizeAndSHA1() async throws {
        let files = try TemporaryDirectory(prefix: "atsprobe-anchor")
        defer { files.remove() }
        let directory = files.url
        let leaf = try TestPKI.selfSigned(Self.spec(days: 1000, key: .rsa(bits: 1024), hash: .sha1))
        let anchorFile = directory.appendingPathComponent("leaf.pem").path
        try Data(leaf.certificatePEM.utf8).write(to: URL(fileURLWithPath: anchorFile))
        let judgement = try await Self.judge([leaf.certificatePEM], anchors: AnchorConfiguration(caFile: anchorFile, useSystemTrustStore: false))
        #expect(judgement.anchorKind == .userTrustedLeaf)
        #expect(judgement.failures.map(\.rule) == [], "\(judgement.failures)")
    }

    /// User-trusted root: 825 days still apply (SecPolicyCheckValidityPeriodMaximums, "all other
    /// trust"), as does the key size of the leaf.
    @Test func userTrustedRootKeepsThe825DayLimit() async throws {
        let pki = try TestPKI()
        let leaf = try pki.issue(Self.spec(days: 900, key: .rsa(bits: 1024)))
        let judgement = try await Self.judge([leaf.certificatePEM], anchors: AnchorConfiguration(caFile: try pki.writeRootPEM(), useSystemTrustStore: false))
        #expect(judgement.anchorKind == .userTrustedRoot)
        #expect(judgement.failures.map(\.rule) == ["validity-825", "rsa-key-size"], "\(judgement.failures)")
        // Within 825 days (and over 398): a user-trusted root needs neither 398 days nor CT.
        let shorter = try pki.issue(Self.spec(days: 500))
        let ok = try await Self.judge([shorter.certificatePEM], anchors: AnchorConfiguration(caFile: try pki.writeRootPEM(), useSystemTrustStore: false))
        #expect(ok.failures.isEmpty, "\(ok.failures)")
    }

    /// A system root the user also trusts stays a system root: 398 days and CT still apply
    /// (Apple asks kSecSystemAnchorSource first: SecPolicyCheckValidityPeriodMaximums,
    /// SecPVCCheckRequireCTConstraints).
    @Test func userTrustOfASystemRootLiftsNeither398DaysNorCT() async throws {
        let pki = try TestPKI()
        let root = try pki.writeRootPEM()
        let leaf = try pki.issue(Self.spec(days: 500))
        let both = AnchorConfiguration(caFile: root, useSystemTrustStore: false, additionalSystemAnchorsFile: root)
        let judgement = try await Self.judge([leaf.certificatePEM], anchors: both)
        #expect(judgement.anchorKind == .systemRoot)
        let rules = judgement.failures.map(\.rule)
        #expect(rules.contains("validity-398"), "\(rules)")
        #expect(rules.contains("certificate-transparency"), "\(rules)")
    }

    /// A PEM file in a fresh directory, removed by the caller's `defer`.
    static func write(_ pems: [String]) throws -> (file: String, directory: TemporaryDirectory) {
        let directory = try TemporaryDirectory(prefix: "atsprobe-app-anchor")
        return (try directory.write("anchors.pem", pems.joined()), directory)
    }

    /// App-set leaf (SecTrustSetAnchorCertificates with the leaf itself): not user-anchored, so
    /// none of the user-trusted leaf's exemptions apply: SecPolicyCheckKeySize and
    /// SecPolicyCheckValidityPeriodMaximums exempt only a leaf in kSecUserAnchorSource (Apple's
    /// KeySizeTests.test1024_appTrustedLeaf fails where test1024_trustSettingsOnLeaf passes).
    /// SHA-1 is still skipped: the self-signed leaf's own signature is never checked
    /// (SecPolicyCheckCertSignatureHashAlgorithms skips self-signed certificates).
    @Test func appAnchoredLeafKeepsTheLifetimeAndKeySizeRules() async throws {
        let leaf = try TestPKI.selfSigned(Self.spec(days: 1000, key: .rsa(bits: 1024), hash: .sha1))
        let (file, directory) = try Self.write([leaf.certificatePEM])
        defer { directory.remove() }
        let judgement = try await Self.judge([leaf.certificatePEM], anchors: AnchorConfiguration(appAnchorFile: file))
        #expect(judgement.anchorKind == .appAnchor)
        #expect(judgement.failures.map(\.rule) == ["validity-825", "rsa-key-size"], "\(judgement.failures)")
    }

    /// App-set root that is no system root: "all other trust". 825 days apply, 398 days and CT
    /// do not (SecPolicyCheckValidityPeriodMaximums, SecPolicyCheckSystemTrustedCTRequired ask
    /// kSecSystemAnchorSource), and the leaf needs id-kp-serverAuth itself from 2019-07-01
    /// (SecPolicyCheckServerAuthEKU: "stricter ... for system and app anchors"), where a
    /// user-trusted root takes a leaf without EKU.
    @Test func appAnchoredRootNeedsServerAuthButNeither398DaysNorCT() async throws {
        let pki = try TestPKI()
        let (file, directory) = try Self.write([pki.rootPEM])
        defer { directory.remove() }
        let app = AnchorConfiguration(appAnchorFile: file)
        let within = try pki.issue(Self.spec(days: 500))
        let ok = try await Self.judge([within.certificatePEM], anchors: app)
        #expect(ok.anchorKind == .appAnchor)
        #expect(ok.failures.isEmpty, "\(ok.failures)")

        let long = try pki.issue(Self.spec(days: 900))
        #expect(try await Self.judge([long.certificatePEM], anchors: app).failures.map(\.rule) == ["validity-825"])

        var noEKU = Self.spec(days: 500)
        noEKU.extendedKeyUsage = nil
        let bare = try pki.issue(noEKU)
        #expect(try await Self.judge([bare.certificatePEM], anchors: app).failures.map(\.rule) == ["eku-server-auth"])
        let user = AnchorConfiguration(caFile: file, useSystemTrustStore: false)
        #expect(try await Self.judge([bare.certificatePEM], anchors: user).failures.isEmpty)
    }

    /// Setting anchors replaces the others (anchorsOnly): a chain to a system root is untrusted
    /// when the app set another root; an app that sets a system root keeps the system rules
    /// (SecCertificateSourceContains(kSecSystemAnchorSource, root) is asked whatever ended the chain).
    @Test func appAnchorsReplaceTheSystemStoreButASystemRootStaysOne() async throws {
        let system = try TestPKI(rootName: "atsprobe System Root")
        let other = try TestPKI(rootName: "atsprobe App Root")
        let (systemFile, systemDirectory) = try Self.write([system.rootPEM])
        let (otherFile, otherDirectory) = try Self.write([other.rootPEM])
        defer {
            systemDirectory.remove()
            otherDirectory.remove()
        }
        let leaf = try system.issue(Self.spec(days: 500))
        let elsewhere = try await Self.judge([leaf.certificatePEM],
                                             anchors: AnchorConfiguration(additionalSystemAnchorsFile: systemFile, appAnchorFile: otherFile))
        #expect(elsewhere.anchorKind == nil)
        // The system root is no anchor now, and not in the store: the leaf's issuer is missing.
        #expect(elsewhere.failures.map(\.rule) == ["trust.incomplete-chain"], "\(elsewhere.failures)")

        let same = try await Self.judge([leaf.certificatePEM],
                                        anchors: AnchorConfiguration(additionalSystemAnchorsFile: systemFile, appAnchorFile: systemFile))
        #expect(same.anchorKind == .systemRoot)
        let rules = same.failures.map(\.rule)
        #expect(rules.contains("validity-398") && rules.contains("certificate-transparency"), "\(rules)")
    }

    /// An app may set an intermediate as its anchor: the path ends there (SecPathBuilderIsAnchor
    /// asks the app's anchor source for each parent), whatever signed it.
    @Test func appAnchoredIntermediateEndsThePath() async throws {
        let pki = try TestPKI(withIntermediate: true)
        let (file, directory) = try Self.write([try #require(pki.intermediatePEM)])
        defer { directory.remove() }
        let leaf = try pki.issue(Self.spec(days: 200))
        let judgement = try await Self.judge([leaf.certificatePEM], anchors: AnchorConfiguration(appAnchorFile: file))
        #expect(judgement.anchorKind == .appAnchor)
        #expect(judgement.failures.isEmpty, "\(judgement.failures)")
        #expect(judgement.chain.count == 2)
    }

    /// --app-anchor with --ca-file is refused: the app's anchors replace the user's.
    @Test func appAnchorsWithUserAnchorsAreRefused() throws {
        let pki = try TestPKI()
        let (file, directory) = try Self.write([pki.rootPEM])
        defer { directory.remove() }
        #expect(throws: TrustSetupError.self) { try TrustStore(options: AnchorConfiguration(caFile: file, appAnchorFile: file)) }
    }
}

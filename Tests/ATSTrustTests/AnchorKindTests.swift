import Foundation
import Testing
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
                              rules: RuleSet.default.certificateRules, logs: .apple)
    }

    static func spec(days: Double, key: TestKey = .ec(curve: .p256), hash: TestSignatureHash = .sha256) -> CertificateSpec {
        CertificateSpec(commonName: "anchor.test", dnsNames: ["anchor.test"], ipAddresses: [], key: key, signatureHash: hash,
                        notBefore: judged.addingTimeInterval(-day), notAfter: judged.addingTimeInterval((days - 1) * day))
    }

    /// User-trusted leaf: a self-signed leaf installed as the user's anchor is exempt from the
    /// lifetime maximums (SecPolicyCheckValidityPeriodMaximums), the key size (SecPolicyCheckKeySize)
    /// and SHA-1 (SecPolicyCheckSignatureHashAlgorithms skips self-signed certificates).
    @Test func userTrustedLeafIsExemptFromLifetimeKeySizeAndSHA1() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("atsprobe-anchor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
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
}

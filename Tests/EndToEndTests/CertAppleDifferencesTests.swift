import Foundation
import Testing
import ATSTestServers
import TestSupport

/// `atsprobe cert` on the differences from Apple's trust closed by issue 33 (docs/trust.md),
/// through the binary: a host with an empty label is judged (and not trusted), not refused;
/// --pin-leaf-spki / --pin-ca-spki as NSPinnedDomains pins; an anchor file holding the leaf
/// ends the chain at the leaf even when the server also sends its private root; the run
/// description names the public suffix list and the pinning list.
@Suite("cert: Apple's trust differences")
struct CertAppleDifferencesTests {
    @Test func emptyLabelHostIsJudgedNotRefused() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pki = try TestPKI()
        let chain = try directory.write("chain.pem", try pki.issue(CertCommandTests.spec(dns: ["test.apple.com"])).fullChainPEM)
        // SSLTrustPolicyTest Test20: Apple evaluates ".test.apple.com" and does not trust it.
        let result = try await BinaryRunner.run(["cert", chain, "--host", ".test.apple.com", "--ca-file", try pki.writeRootPEM(),
                                                 "--at", CertCommandTests.judgedAt])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("[trust.name-mismatch]"), "\(result.stdout)")
        let json = try await BinaryRunner.run(["cert", chain, "--host", "test.apple.com", "--ca-file", try pki.writeRootPEM(),
                                               "--at", CertCommandTests.judgedAt, "--json"])
        #expect(json.status == 0, "\(json.stdout)\(json.stderr)")
        let document = try #require((try? JSONSerialization.jsonObject(with: Data(json.stdout.utf8))) as? [String: Any])
        let store = (document["run"] as? [String: Any])?["trustStore"] as? String ?? ""
        #expect(store.contains("publicsuffix ") && store.contains("Apple pinning list security_certificates-"), "\(store)")
        let bad = try await BinaryRunner.run(["cert", chain, "--host", "a b", "--ca-file", try pki.writeRootPEM()])
        #expect(bad.status == 64, "\(bad.stderr)")
    }

    @Test func pinOptions() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pki = try TestPKI(withIntermediate: true)
        let identity = try pki.issue(CertCommandTests.spec())
        let chain = try directory.write("chain.pem", identity.fullChainPEM)
        let root = try pki.writeRootPEM()
        let base = ["cert", chain, "--host", "cert.test", "--ca-file", root, "--at", CertCommandTests.judgedAt]
        let other = Data(repeating: 7, count: 32).base64EncodedString()
        let leafGood = try await BinaryRunner.run(base + ["--pin-leaf-spki", other, "--pin-leaf-spki", identity.spkiSHA256Base64])
        #expect(leafGood.status == 0, "\(leafGood.stdout)\(leafGood.stderr)")
        let leafBad = try await BinaryRunner.run(base + ["--pin-leaf-spki", other])
        #expect(leafBad.status == 1, "\(leafBad.stdout)")
        #expect(leafBad.stdout.contains("[pins]"), "\(leafBad.stdout)")
        // A CA pin matches the root as built (not served): SecPolicyCheckCAspkiSHA256 reads the path.
        let rootPin = try await BinaryRunner.run(base + ["--pin-ca-spki", pki.root.spkiSHA256Base64])
        #expect(rootPin.status == 0, "\(rootPin.stdout)\(rootPin.stderr)")
        let caBad = try await BinaryRunner.run(base + ["--pin-ca-spki", identity.spkiSHA256Base64])
        #expect(caBad.status == 1, "\(caBad.stdout)")
        let malformed = try await BinaryRunner.run(base + ["--pin-ca-spki", "not-base64"])
        #expect(malformed.status == 64 && malformed.stderr.contains("not an SPKI-SHA256-BASE64 identity"), "\(malformed.stderr)")
    }

    /// The anchor file holds the leaf and the server also sends its private root: Apple's path
    /// ends at the first certificate an anchor source holds (SecPathBuilderIsAnchor), so the
    /// leaf is the anchor; the root above it was labelled a system root (CT demanded) before.
    @Test func anchorFileHoldingTheLeafEndsThePath() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pki = try TestPKI()
        let identity = try pki.issue(CertCommandTests.spec())
        let chain = try directory.write("chain.pem", identity.certificatePEM + pki.rootPEM)
        let leaf = try directory.write("leaf.pem", identity.certificatePEM)
        for option in ["--ca-file", "--app-anchor"] {
            let result = try await BinaryRunner.run(["cert", chain, "--host", "cert.test", option, leaf, "--at", CertCommandTests.judgedAt, "--json"])
            #expect(result.status == 0, "\(option): \(result.stdout)\(result.stderr)")
            let document = try #require((try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any])
            #expect(document["anchorKind"] as? String == (option == "--ca-file" ? "user-trusted-leaf" : "app-anchor"), "\(result.stdout)")
        }
    }
}

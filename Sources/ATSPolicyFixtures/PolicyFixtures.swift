#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts
import ATSPolicy

package let referenceDate = Date(timeIntervalSince1970: 1_760_000_000)

package func suite(_ code: UInt16) -> CipherSuite { CipherSuite(rawValue: code) }

/// A completed handshake with the facts a test cares about; everything else is a plain default.
package func testObservation(version: TLSVersion = .tls12, suite: CipherSuite = CipherSuite(rawValue: 0xC02F),
                     key: PublicKeyFacts = PublicKeyFacts(algorithm: .rsa, bits: 2048),
                     hash: SignatureHash = .sha256, trustProblems: [TrustProblem] = [],
                     chainSPKIs: [String] = ["leafSPKI", "caSPKI"], http: HTTPExchange? = HTTPExchange(statusCode: 200)) -> Observation {
    let chain = chainSPKIs.enumerated().map { index, spki in
        CertificateFacts(
            subject: index == 0 ? "CN=example.com" : "CN=Test CA \(index)", issuer: "CN=Test CA \(index + 1)",
            serialNumber: "0\(index + 1)", dnsNames: index == 0 ? ["example.com"] : [], ipAddresses: [],
            notBefore: referenceDate.addingTimeInterval(-86_400), notAfter: referenceDate.addingTimeInterval(86_400 * 90),
            publicKey: index == 0 ? key : PublicKeyFacts(algorithm: .rsa, bits: 4096),
            signatureAlgorithm: hash == .sha1 ? "sha1WithRSAEncryption" : "sha256WithRSAEncryption",
            signatureHash: index == 0 ? hash : .sha256, sha256Fingerprint: "AA:BB", spkiSHA256Base64: spki,
            isCA: index > 0, isSelfIssued: false,
            extendedKeyUsage: index == 0 ? [CertificateFacts.serverAuthOID] : nil)
    }
    return Observation(peerAddress: "127.0.0.1", port: 443, serverName: "example.com", protocolVersion: version,
                       cipherSuite: suite, openSSLCipherName: suite.ianaName, keyExchangeGroup: suite.isForwardSecret ? "X25519" : nil,
                       chain: chain, alpn: nil, connectMilliseconds: 1, handshakeMilliseconds: 2,
                       trust: TrustEvaluation(problems: trustProblems, anchor: trustProblems.isEmpty ? .user : nil,
                                              evaluatedAt: referenceDate),
                       http: http)
}

/// A TLS server as a table of what it speaks: it answers an offer the way servers do, with the
/// highest shared protocol and its own first suite the offer allows at that protocol, and does
/// not fall back when it has no suite there.
package struct SimulatedServer {
    package var versions: [TLSVersion]
    /// In the server's preference order.
    package var suites: [CipherSuite]
    package var key = PublicKeyFacts(algorithm: .rsa, bits: 2048)
    package var hash = SignatureHash.sha256
    package var trustProblems: [TrustProblem] = []

    package init(versions: [TLSVersion], suites: [CipherSuite], key: PublicKeyFacts = PublicKeyFacts(algorithm: .rsa, bits: 2048),
                hash: SignatureHash = .sha256, trustProblems: [TrustProblem] = []) {
        self.versions = versions
        self.suites = suites
        self.key = key
        self.hash = hash
        self.trustProblems = trustProblems
    }

    package static func usable(_ suite: CipherSuite, at version: TLSVersion) -> Bool {
        if version == .tls13 { return suite.isTLS13 }
        if suite.isTLS13 { return false }
        let name = suite.ianaName
        let tls12Only = name.contains("GCM") || name.contains("CHACHA") || name.hasSuffix("_SHA256") || name.hasSuffix("_SHA384")
        return version == .tls12 || !tls12Only
    }

    package func handshake(_ offer: ClientOffer) -> ProbeResult {
        guard let version = versions.filter({ $0 >= offer.minVersion && $0 <= offer.maxVersion }).max() else {
            return .failure(ProbeFailure(kind: .noSharedProtocol, alert: .protocolVersion, detail: ""))
        }
        guard let chosen = suites.first(where: { offer.suites.contains($0) && SimulatedServer.usable($0, at: version) }) else {
            return .failure(ProbeFailure(kind: .noSharedCipher, alert: .handshakeFailure, detail: ""))
        }
        return .success(testObservation(version: version, suite: chosen, key: key, hash: hash, trustProblems: trustProblems))
    }

    /// nscurl's 16 tests against this server, each judged under its own dictionary. The simulated
    /// chain breaks no Apple certificate rule (said here, not defaulted by the evaluator).
    package func diagnose(host: String = "example.com", ruleSet: RuleSet) -> [(DiagnosticTest, Verdict)] {
        NSCurlMatrix.tests(host: host).map { test in
            let policy = EffectivePolicy(configuration: test.configuration, host: host, ruleSet: ruleSet)
            return (test, ATSEvaluator.evaluate(handshake(policy.clientOffer(ruleSet: ruleSet)), under: policy, ruleSet: ruleSet,
                                                certificateViolations: []))
        }
    }

    /// The titles of the tests that pass.
    package func passing(ruleSet: RuleSet) -> [String] {
        diagnose(ruleSet: ruleSet).filter { $0.1.passed }.map { $0.0.title }
    }
}

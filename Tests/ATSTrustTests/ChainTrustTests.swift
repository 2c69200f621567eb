import Foundation
import Synchronization
import Testing
import ATSPolicy
import ATSTestServers
import ATSTrust
import OpenSSLSupport
import TLSFacts

/// Missing issuers from a table instead of the network: the evaluator needs no socket.
final class TableIssuerSource: IssuerSource {
    let table: [String: CAIssuers.Outcome]
    private let asked = Mutex<[String]>([])
    init(_ table: [String: CAIssuers.Outcome]) { self.table = table }
    var urlsAsked: [String] { asked.withLock { $0 } }
    func certificates(from url: String) async -> CAIssuers.Outcome {
        asked.withLock { $0.append(url) }
        return table[url] ?? .failure("not in the table")
    }
}

/// ATSTrust offline: a chain judged once per run, chains read from files, caIssuers limits told truly.
@Suite struct ChainTrustTests {
    static func chainTrust(root: String?) throws -> (ChainTrust, TrustEvaluationCache) {
        let anchors = AnchorConfiguration(caFile: root, useSystemTrustStore: false)
        let cache = TrustEvaluationCache()
        let trust = ChainTrust(store: try TrustStore(options: anchors), anchors: anchors, date: Date(),
                               verifier: SCTVerifier(keys: [:]), evaluations: cache)
        return (trust, cache)
    }

    static func served(_ pems: [String]) throws -> [ServedCertificate] {
        try pems.map { ServedCertificate(try X509Certificate(pem: $0)) }
    }

    /// Ten handshakes served the same chain for the same name are one evaluation, even when
    /// they ask at once; another name is another evaluation.
    @Test func sameChainAndNameIsEvaluatedOnce() async throws {
        let pki = try TestPKI(withIntermediate: true)
        let identity = try pki.issue(CertificateSpec())
        let (trust, cache) = try Self.chainTrust(root: try pki.writeRootPEM())
        let chain = try Self.served([identity.certificatePEM] + identity.chainPEM)
        let verdicts = await withTaskGroup(of: Bool.self) { group -> [Bool] in
            for _ in 0..<10 {
                group.addTask { await trust.judge(served: chain, name: "localhost", source: nil, policy: nil, fetchedIssuer: { _ in nil }).trust.isTrusted }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(verdicts == Array(repeating: true, count: 10))
        #expect(cache.evaluationsMade == 1)
        let other = await trust.judge(served: chain, name: "other.example", source: nil, policy: nil, fetchedIssuer: { _ in nil })
        #expect(other.trust.problems.map(\.kind) == [.nameMismatch])
        #expect(cache.evaluationsMade == 2)
    }

    /// Issue 24: a certificate naming 1,000 caIssuers URLs is reported with 1,000, not 64, and
    /// nothing is fetched (Apple fetches none from 10 on: SecCAIssuerRequest.m CA_ISSUERS_REQUEST_THRESHOLD).
    @Test func thousandCAIssuersURLsAreCountedTruly() async throws {
        let pki = try TestPKI(withIntermediate: true)
        let urls = (0..<1000).map { "http://ca\($0).example/i.cer" }
        let identity = try pki.issue(CertificateSpec(caIssuersURLs: urls))
        let leaf = try X509Certificate(pem: identity.certificatePEM)
        #expect(CAIssuers.caIssuerURLs(of: leaf).total == 1000)
        let (trust, _) = try Self.chainTrust(root: try pki.writeRootPEM())
        let source = TableIssuerSource([:])
        let result = await trust.judge(served: try Self.served([identity.certificatePEM]), name: "localhost",
                                       source: source, policy: IssuerFetchAddressPolicy(allowsNonGlobal: false), fetchedIssuer: { _ in nil })
        #expect(source.urlsAsked.isEmpty)
        let failure = try #require(result.trust.fetchedIssuers?.first?.failure)
        #expect(failure == "not fetched: 1000 caIssuers URLs (Apple fetches none from 10 on)")
    }

    /// Issue 40: a leaf of 100,000 subjectAltName entries is trusted for its last name, as Apple
    /// matches every name the certificate holds (SecPolicyCheckCertSSLHostname); only what is
    /// shown is cut (`CertificateReader.listLimit`). It was NOT TRUSTED: the name check read the
    /// first 256 names.
    @Test func everySubjectAltNameIsMatchedAndOnlyTheDisplayIsCut() async throws {
        let pki = try TestPKI()
        let names = (0..<100_000).map { String($0, radix: 36) + ".a" }
        // CPU-heavy (the extension is built from 100,000 names): on a thread of its own.
        let identity = try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try pki.issue(CertificateSpec(dnsNames: names, ipAddresses: [])) }) }.start()
        }
        let (trust, _) = try Self.chainTrust(root: try pki.writeRootPEM())
        let chain = try Self.served([identity.certificatePEM])
        #expect(chain[0].facts.dnsNames.count == CertificateReader.listLimit)
        let started = Date()
        let last = await trust.judge(served: chain, name: names[names.count - 1], source: nil, policy: nil, fetchedIssuer: { _ in nil })
        #expect(last.trust.isTrusted, "\(last.trust.problems)")
        #expect(Date().timeIntervalSince(started) < 10, "took \(Date().timeIntervalSince(started)) s")
        let other = await trust.judge(served: chain, name: "absent.a", source: nil, policy: nil, fetchedIssuer: { _ in nil })
        let problem = try #require(other.trust.problems.first { $0.kind == .nameMismatch })
        #expect(problem.detail.hasSuffix("and 99980 more"), "\(problem.detail)")
    }

    /// Issue 24: a PKCS#7 of 17 certificates keeps all 17 (it kept 16 and so missed an issuer
    /// placed last); Apple takes every certificate of a certs-only message within the size bound.
    @Test func pkcs7KeepsEveryCertificate() async throws {
        let pki = try TestPKI(withIntermediate: true)
        let others = try (0..<16).map { try TestPKI.selfSigned(CertificateSpec(commonName: "filler \($0)")).certificateDER }
        let message = try TestPKI.certsOnlyPKCS7(others + [pki.intermediate!.certificateDER])
        #expect(message.count < CAIssuers.responseLimit)
        let decoded = CAIssuers.decodeCertificates(message)
        #expect(decoded.count == 17)
        #expect(decoded.last == pki.intermediate!.certificateDER)
        // The issuer, last of 17, is found and the chain verifies.
        let identity = try pki.issue(CertificateSpec(caIssuersURLs: ["http://ca.example/bundle.p7c"]))
        let (trust, _) = try Self.chainTrust(root: try pki.writeRootPEM())
        let source = TableIssuerSource(["http://ca.example/bundle.p7c": .certificates(decoded)])
        let result = await trust.judge(served: try Self.served([identity.certificatePEM]), name: "localhost",
                                       source: source, policy: IssuerFetchAddressPolicy(allowsNonGlobal: false), fetchedIssuer: { _ in nil })
        #expect(result.trust.isTrusted, "\(result.trust.problems)")
        #expect(ChainFile.pkcs7(der: message)?.count == 17)
    }

    /// Names (SecPolicyLeafCallbacks.c SecDNSMatch, SecCertificate.c SecCertificateCopyDNSNamesFromSAN):
    /// the CommonName is never used, even without SANs; the host's trailing dot is removed; a SAN
    /// with a trailing dot matches nothing; an IP host matches only an iPAddress entry.
    @Test func namesMatchAsApplesCode() async throws {
        let pki = try TestPKI()
        let (trust, _) = try Self.chainTrust(root: try pki.writeRootPEM())
        func trusted(_ spec: CertificateSpec, _ name: String) async throws -> Bool {
            let identity = try pki.issue(spec)
            return await trust.judge(served: try Self.served([identity.certificatePEM]), name: name, source: nil, policy: nil,
                                     fetchedIssuer: { _ in nil }).trust.problems.allSatisfy { $0.kind != .nameMismatch }
        }
        #expect(try await !trusted(CertificateSpec(commonName: "cn.example", dnsNames: [], ipAddresses: []), "cn.example"))
        #expect(try await !trusted(CertificateSpec(commonName: "cn.example", dnsNames: ["other.example"]), "cn.example"))
        #expect(try await trusted(CertificateSpec(dnsNames: ["www.example.com"]), "www.example.com."))
        #expect(try await !trusted(CertificateSpec(dnsNames: ["www.example.com."]), "www.example.com"))
        #expect(try await trusted(CertificateSpec(dnsNames: [], ipAddresses: ["192.0.2.7"]), "192.0.2.7"))
        #expect(try await !trusted(CertificateSpec(dnsNames: ["192.0.2.7"], ipAddresses: []), "192.0.2.7"))
    }

    @Test func chainFilesReadAsPEMDERAndPKCS7() throws {
        let pki = try TestPKI(withIntermediate: true)
        let identity = try pki.issue(CertificateSpec())
        #expect(try ChainFile.chain(in: Array(identity.fullChainPEM.utf8)).count == 2)
        #expect(try ChainFile.chain(in: identity.certificateDER).count == 1)
        #expect(try ChainFile.chain(in: try TestPKI.certsOnlyPKCS7([identity.certificateDER, pki.intermediate!.certificateDER])).count == 2)
        #expect(throws: ChainFile.ReadError.self) { try ChainFile.chain(in: []) }
        #expect(throws: ChainFile.ReadError.self) { try ChainFile.chain(in: Array("hello".utf8)) }
        let thousand = String(repeating: identity.certificatePEM, count: 1000)
        do {
            _ = try ChainFile.chain(in: Array(thousand.utf8))
            Issue.record("a chain of 1,000 certificates was accepted")
        } catch {
            #expect(error.reason == "1000 certificates: more than 256, no chain is this long")
        }
    }
}

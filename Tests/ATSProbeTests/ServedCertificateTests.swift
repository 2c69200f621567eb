import Foundation
import Testing
@testable import ATSProbe
import ATSTrust
import ATSTestServers
import OpenSSLSupport
import TLSFacts

/// Trust evaluation takes the certificates the handshake read, with their facts, and reads again
/// only what the server did not send (an anchor from a store).
@Suite struct ServedCertificateTests {
    @Test func trustEvaluationUsesTheHandshakesFacts() async throws {
        let pki = try TestPKI(withIntermediate: true)
        let identity = try pki.issue(CertificateSpec())
        let rootPath = try pki.writeRootPEM()
        let store = try TrustStore(options: AnchorConfiguration(caFile: rootPath, useSystemTrustStore: false))

        var leaf = ServedCertificate(try X509Certificate(der: identity.certificateDER))
        let intermediate = ServedCertificate(try X509Certificate(pem: try #require(identity.chainPEM.first)))
        #expect(leaf.facts.sha256Fingerprint == CertificateReader.fingerprint(of: leaf.certificate))
        leaf.facts.subject = "as the handshake read it"  // a re-read would show the certificate's own subject

        let evaluation = await TrustEvaluator(store: store, date: Date()).evaluate(served: [leaf, intermediate], name: nil)
        #expect(evaluation.anchor == .user)
        #expect(evaluation.problems.isEmpty, "\(evaluation.problems)")
        let path = try #require(evaluation.path)
        #expect(path.count == 3)
        #expect(path[0].subject == "as the handshake read it")
        #expect(path[1] == intermediate.facts)
        #expect(path[2].subject.contains("atsprobe Test Root"), "the anchor, read from the store")
    }

    @Test func aMissingIssuerIsPlacedByTheServedFacts() async throws {
        let pki = try TestPKI(withIntermediate: true)
        let identity = try pki.issue(CertificateSpec())
        let store = try TrustStore(options: AnchorConfiguration(useSystemTrustStore: false))
        let leaf = ServedCertificate(try X509Certificate(der: identity.certificateDER))
        let evaluation = await TrustEvaluator(store: store, date: Date()).evaluate(served: [leaf], name: nil)
        #expect(evaluation.anchor == nil)
        #expect(evaluation.problems.map(\.kind) == [.incompleteChain])
        #expect(evaluation.problems.first?.certificateIndex == 0)
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
package import OpenSSLSupport
import TLSFacts

/// What the handshake and `atsprobe cert` both run on a chain: the trust evaluation (once per
/// distinct chain, name, anchors, date and fetch policy in a run: TrustEvaluationCache), then
/// the leaf's embedded SCT signatures, which need the issuer the evaluation found or fetched.
/// One code path, so a chain served on a socket and the same chain read from a file get the
/// same verdict.
package struct ChainTrust: Sendable {
    package let store: TrustStore
    package let anchors: AnchorConfiguration
    package let date: Date
    package let verifier: SCTVerifier
    package let evaluations: TrustEvaluationCache

    package init(store: TrustStore, anchors: AnchorConfiguration, date: Date, verifier: SCTVerifier, evaluations: TrustEvaluationCache) {
        self.store = store
        self.anchors = anchors
        self.date = date
        self.verifier = verifier
        self.evaluations = evaluations
    }

    /// `served` leaf first; `name` the DNS name or IP literal to match; `source` fetches missing
    /// issuers under `policy` (nil: --no-aia); `fetchedIssuer` finds an issuer already fetched
    /// (for the SCT check; never fetches). Returns the chain with its SCT signatures judged.
    package func judge(served: [ServedCertificate], name: String?, source: (any IssuerSource)?, policy: IssuerFetchAddressPolicy?,
                       fetchedIssuer: (X509Certificate) -> X509Certificate?) async -> (chain: [ServedCertificate], trust: TrustEvaluation) {
        var chain = served
        let key = TrustEvaluationCache.Key(chain: served.map(\.facts.sha256Fingerprint), name: name, anchors: anchors,
                                           date: date, fetching: source == nil ? nil : policy)
        let evaluator = TrustEvaluator(store: store, date: date, fetcher: source)
        let trust = await evaluations.evaluation(for: key) { await evaluator.evaluate(served: served, name: name) }
        // The leaf's embedded SCTs sign the precertificate, which names the leaf's issuer: looked
        // up only when the leaf has SCTs. Served, in the store, or fetched by caIssuers above.
        // Only the leaf's SCT list extension is decoded again, to judge each signature.
        if let leaf = served.first?.certificate, !chain[0].facts.embeddedSCTs.isEmpty {
            let issuer = store.issuer(of: leaf, served: served.map(\.certificate)) ?? fetchedIssuer(leaf)
            let verifier = self.verifier
            chain[0].facts.embeddedSCTs = CertificateReader.embeddedSCTs(of: leaf) { sct in
                verifier.check(sct, entry: .precertificate(leaf: leaf, issuer: issuer))
            }
        }
        return (chain, trust)
    }
}

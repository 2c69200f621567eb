package import OpenSSLSupport
import TLSFacts

/// One certificate the server sent, read once per handshake: the X509 (a reference of our own,
/// so it outlives the SSL that received it) and its facts. Trust evaluation takes these rather
/// than reading the chain again.
package struct ServedCertificate: Sendable {
    package let certificate: X509Certificate
    /// Embedded SCTs not yet judged (`.notChecked`): the handshake judges the leaf's once trust
    /// evaluation has found (or fetched) its issuer.
    package var facts: CertificateFacts

    package init(_ certificate: X509Certificate) {
        self.certificate = certificate
        facts = CertificateReader.facts(of: certificate)
    }

    /// The certificate with facts already read from an identical one (ATSProbe's per-run cache).
    package init(_ certificate: X509Certificate, facts: CertificateFacts) {
        self.certificate = certificate
        self.facts = facts
    }
}

internal import COpenSSL
internal import OpenSSLSupport
import ATSTrust
import Synchronization
import TLSFacts

/// Each distinct certificate a server sends is read once per run (issue 23, item 2: "parse each
/// certificate once"). nscurl's 16 tests make about ten handshakes to one server and each is
/// sent the same chain; reading a certificate's facts (names, key, fingerprints, extensions,
/// SCT list) cost about 0.43 M instructions a handshake, against a few thousand for the SHA-256
/// of its DER that finds it here. OpenSSL still decodes every certificate it receives, as the
/// floor client's does. The facts depend on the certificate alone (embedded SCTs are left
/// unjudged here; ChainTrust judges the leaf's for each handshake), so a copy is as good as a
/// new reading. Handshakes that finish at the same moment may each read a certificate not yet
/// here (the lock is not held while reading): a few readings more, never a wrong one.
final class CertificateFactsCache: Sendable {
    /// Certificates remembered at once; when full the cache starts again, so a run over many
    /// servers holds at most this many (a few MB), and one server's ten handshakes, which come
    /// together, still share one reading.
    static let limit = 4_096

    private let entries = Mutex<[[UInt8]: CertificateFacts]>([:])
    private let readings = Atomic<Int>(0)

    /// Certificates read in this run (the rest were found here).
    var certificatesRead: Int { readings.load(ordering: .relaxed) }

    func served(_ certificate: X509Certificate) -> ServedCertificate {
        guard let key = CertificateReader.certificateSHA256(of: certificate) else { return ServedCertificate(certificate) }
        if let facts = entries.withLock({ $0[key] }) { return ServedCertificate(certificate, facts: facts) }
        let served = ServedCertificate(certificate)
        readings.add(1, ordering: .relaxed)
        entries.withLock { entries in
            if entries.count >= Self.limit { entries.removeAll(keepingCapacity: true) }
            entries[key] = served.facts
        }
        return served
    }
}

package import OpenSSLSupport
import TLSFacts

extension ChainFile.Chain {
    /// Each certificate's facts in file order (`cert`'s order check, CertAdvice).
    package var facts: [CertificateFacts] { certificates.map { CertificateReader.facts(of: $0) } }
}

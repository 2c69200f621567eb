#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
package import COpenSSL
package import CATSProbeShims
package import OpenSSLSupport
import TLSFacts

/// Checks a log's signature on an SCT (RFC 6962 section 3.2), as Apple does before counting it.
/// An SCT from the TLS extension or an OCSP staple signs the leaf itself (x509_entry); an
/// embedded one signs the precertificate: the issuer's key hash and the leaf's TBSCertificate
/// without the SCT list extension (precert_entry).
package struct SCTVerifier: Sendable {
    /// Log ID (base64) -> the log's public key (DER SubjectPublicKeyInfo).
    package let keys: [String: [UInt8]]

    package init(keys: [String: [UInt8]]) {
        self.keys = keys
    }

    package enum Entry {
        case certificate(leaf: X509Certificate)
        case precertificate(leaf: X509Certificate, issuer: X509Certificate?)
    }

    package func check(_ sct: OpaquePointer, entry: Entry) -> SignedCertificateTimestamp.SignatureCheck {
        var idPointer: UnsafeMutablePointer<UInt8>?
        let idLength = SCT_get0_log_id(sct, &idPointer)
        guard let idPointer, let key = keys[Data(bytes: idPointer, count: idLength).base64EncodedString()] else { return .unknownLog }
        guard SCT_get_version(sct) == SCT_VERSION_V1 else { return .invalid }

        var message: [UInt8] = [0, 0]  // v1, certificate_timestamp
        let milliseconds = SCT_get_timestamp(sct)
        message += (0..<8).reversed().map { UInt8(truncatingIfNeeded: milliseconds >> (8 * UInt64($0))) }
        switch entry {
        case .certificate(let leaf):
            guard let der = try? leaf.der else { return .invalid }
            message += [0, 0] + Self.uint24(der.count) + der
        case .precertificate(let leaf, let issuer):
            guard let issuer else { return .noIssuer }
            guard let issuerKeyHash = CertificateReader.spkiSHA256(of: issuer), let tbs = leaf.tbsDER(removingExtension: NID_ct_precert_scts) else { return .invalid }
            message += [0, 1] + issuerKeyHash + Self.uint24(tbs.count) + tbs
        }
        var extensions: UnsafeMutablePointer<UInt8>?
        let extensionsLength = SCT_get0_extensions(sct, &extensions)
        message += [UInt8(truncatingIfNeeded: extensionsLength >> 8), UInt8(truncatingIfNeeded: extensionsLength)]
        if let extensions, extensionsLength > 0 { message += UnsafeBufferPointer(start: extensions, count: extensionsLength) }

        var signature: UnsafeMutablePointer<UInt8>?
        let signatureLength = SCT_get0_signature(sct, &signature)
        guard let signature, signatureLength > 0 else { return .invalid }
        return Self.verify(message, signature: UnsafeBufferPointer(start: signature, count: signatureLength), key: key) ? .valid : .invalid
    }

    /// The SCTs embedded in a PEM leaf, each checked against `issuerPEM`'s key: for checking this
    /// verifier against certificates and SCTs made by other implementations.
    package func embeddedSCTs(leafPEM: String, issuerPEM: String) -> [SignedCertificateTimestamp] {
        guard let leaf = try? X509Certificate(pem: leafPEM) else { return [] }
        let issuer = try? X509Certificate(pem: issuerPEM)
        return CertificateReader.embeddedSCTs(of: leaf) { check($0, entry: .precertificate(leaf: leaf, issuer: issuer)) }
    }

    /// SHA-256 signature check with whichever key type the log has (ECDSA P-256 or RSA).
    package static func verify(_ message: [UInt8], signature: UnsafeBufferPointer<UInt8>, key der: [UInt8]) -> Bool {
        defer { OpenSSLErrors.clear() }
        guard let key = try? EVPKey(publicKeyDER: der) else { return false }
        return key.verifySHA256(signature: signature, of: message)
    }

    package static func uint24(_ value: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }
}

/// CT log keys as lists give them.
package enum CTLogKey {
    /// The log ID a key stands for: base64 of the SHA-256 of its DER SubjectPublicKeyInfo
    /// (RFC 6962 section 3.2). A list whose key does not hash to the log's ID is broken.
    package static func logID(ofKey der: [UInt8]) -> String {
        Data(der.withUnsafeBytes(CertificateReader.sha256)).base64EncodedString()
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
package import COpenSSL
package import CATSProbeShims
package import OpenSSLSupport
import TextSupport
import TLSFacts

/// Reads one X509 (borrowed from its owner, an X509Certificate) into CertificateFacts. Every list and name is bounded.
package enum CertificateReader {
    package static let nameLimit = 4096
    package static let listLimit = 256

    /// Everything the certificate says; `checkSCT` judges each embedded SCT's signature (the
    /// handshake passes one for the leaf, whose issuer it knows).
    package static func facts(of certificate: X509Certificate,
                      checkSCT: (OpaquePointer) -> SignedCertificateTimestamp.SignatureCheck = { _ in .notChecked }) -> CertificateFacts {
        let (hash, algorithmName) = signature(of: certificate)
        let alternativeNames = subjectAltNames(of: certificate)
        let validity = certificate.validity
        return CertificateFacts(
            subject: certificate.subjectName(limit: nameLimit),
            issuer: certificate.issuerName(limit: nameLimit),
            serialNumber: certificate.serialHex(limit: nameLimit),
            dnsNames: alternativeNames.dns,
            ipAddresses: alternativeNames.ip,
            notBefore: validity.notBefore.map { Date(timeIntervalSince1970: TimeInterval($0)) } ?? .distantPast,
            notAfter: validity.notAfter.map { Date(timeIntervalSince1970: TimeInterval($0)) } ?? .distantPast,
            publicKey: publicKey(of: certificate),
            signatureAlgorithm: algorithmName,
            signatureHash: hash,
            sha256Fingerprint: fingerprint(of: certificate),
            spkiSHA256Base64: spkiHash(of: certificate),
            isCA: certificate.isCA,
            isSelfIssued: certificate.isSelfIssued,
            extendedKeyUsage: certificate.extendedKeyUsageOIDs(limit: listLimit),
            embeddedSCTs: embeddedSCTs(of: certificate, check: checkSCT))
    }

    /// The DNS and IP entries of the subjectAltName, up to `limit` of each kind, read from every
    /// entry (an IP address after 300 other names is found). The facts keep `listLimit` of each,
    /// for display; the name check reads them all (`dnsNames(of:)`), as Apple matches every name.
    package static func subjectAltNames(of certificate: X509Certificate, limit: Int = listLimit) -> (dns: [String], ip: [String]) {
        let names = certificate.subjectAltNames(limit: limit, nameLimit: nameLimit)
        return (names.dns, names.ip.map { $0.withUnsafeBytes(ipText) })
    }

    /// Every DNS entry of the subjectAltName, however many: what the name check matches against
    /// (SecPolicyLeafCallbacks.c SecPolicyCheckCertSSLHostname reads them all). The work is bounded
    /// by the certificate's size, which the reader already bounds, not by cutting the list.
    package static func dnsNames(of certificate: X509Certificate) -> [String] {
        subjectAltNames(of: certificate, limit: .max).dns
    }

    package static func ipText(_ bytes: UnsafeRawBufferPointer) -> String {
        let family: Int32
        switch bytes.count {
        case 4: family = AF_INET
        case 16: family = AF_INET6
        default: return bytes.hexEncoded()
        }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(family, bytes.baseAddress, &buffer, socklen_t(buffer.count)) != nil else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    package static func publicKey(of certificate: X509Certificate) -> PublicKeyFacts {
        guard let key = certificate.publicKeyInfo else { return PublicKeyFacts(algorithm: .other, bits: 0) }
        switch key.baseID {
        case EVP_PKEY_RSA: return PublicKeyFacts(algorithm: .rsa, bits: key.bits)
        case EVP_PKEY_RSA_PSS: return PublicKeyFacts(algorithm: .rsaPSS, bits: key.bits)
        case EVP_PKEY_EC: return PublicKeyFacts(algorithm: .ec, bits: key.bits, curve: key.curve)
        case EVP_PKEY_ED25519: return PublicKeyFacts(algorithm: .ed25519, bits: key.bits)
        case EVP_PKEY_ED448: return PublicKeyFacts(algorithm: .ed448, bits: key.bits)
        case EVP_PKEY_DSA: return PublicKeyFacts(algorithm: .dsa, bits: key.bits)
        default: return PublicKeyFacts(algorithm: .other, bits: key.bits)
        }
    }

    package static func signature(of certificate: X509Certificate) -> (SignatureHash, String) {
        let (name, info) = certificate.signatureAlgorithm
        guard let info else { return (.unknown, name) }
        let (digestNID, keyNID) = (info.digestNID, info.keyNID)
        let hash: SignatureHash = switch digestNID {
        case NID_md5: .md5
        case NID_sha1: .sha1
        case NID_sha224: .sha224
        case NID_sha256: .sha256
        case NID_sha384: .sha384
        case NID_sha512: .sha512
        case NID_undef where keyNID == NID_ED25519 || keyNID == NID_ED448: .intrinsic
        default: .unknown
        }
        return (hash, name)
    }

    package static func sha256(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        (try? Digest.sha256(bytes)) ?? []
    }

    package static func fingerprint(of certificate: X509Certificate) -> String {
        certificateSHA256(of: certificate)?.hexEncoded(separator: ":") ?? ""
    }

    /// SHA-256 of the certificate's DER: its fingerprint, and its identity in a run's caches.
    package static func certificateSHA256(of certificate: X509Certificate) -> [UInt8]? {
        certificate.sha256Digest
    }

    /// Base64 SHA-256 of the certificate's DER SubjectPublicKeyInfo (Apple's pin form).
    package static func spkiHash(of certificate: X509Certificate) -> String {
        spkiSHA256(of: certificate).map { Data($0).base64EncodedString() } ?? ""
    }

    /// SHA-256 of the certificate's DER SubjectPublicKeyInfo: the pin, and RFC 6962's issuer_key_hash.
    package static func spkiSHA256(of certificate: X509Certificate) -> [UInt8]? {
        certificate.subjectPublicKeyInfoDER.map { $0.withUnsafeBytes(sha256) }
    }

    /// The SCTs embedded in `cert`, each signature judged by `check`.
    package static func embeddedSCTs(of certificate: X509Certificate,
                             check: (OpaquePointer) -> SignedCertificateTimestamp.SignatureCheck) -> [SignedCertificateTimestamp] {
        certificate.withEmbeddedSCTList { StatusReader.timestamps(in: $0, source: { _ in .embedded }, check: check) } ?? []
    }
}

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
        let cert = certificate.pointer
        let (hash, algorithmName) = signature(of: cert)
        let alternativeNames = subjectAltNames(of: certificate)
        return CertificateFacts(
            subject: name(X509_get_subject_name(cert)),
            issuer: name(X509_get_issuer_name(cert)),
            serialNumber: certificate.serialHex(limit: nameLimit),
            dnsNames: alternativeNames.dns,
            ipAddresses: alternativeNames.ip,
            notBefore: date(X509_get0_notBefore(cert)) ?? .distantPast,
            notAfter: date(X509_get0_notAfter(cert)) ?? .distantPast,
            publicKey: publicKey(of: cert),
            signatureAlgorithm: algorithmName,
            signatureHash: hash,
            sha256Fingerprint: fingerprint(of: cert),
            spkiSHA256Base64: spkiHash(of: certificate),
            isCA: X509_check_ca(cert) != 0,
            isSelfIssued: X509_NAME_cmp(X509_get_subject_name(cert), X509_get_issuer_name(cert)) == 0,
            extendedKeyUsage: certificate.extendedKeyUsageOIDs(limit: listLimit),
            embeddedSCTs: embeddedSCTs(of: certificate, check: checkSCT))
    }

    /// One-line RFC 2253 form.
    package static func name(_ name: OpaquePointer?) -> String {
        guard let name, let bio = try? MemoryBIO() else { return "" }
        guard X509_NAME_print_ex(bio.pointer, name, 0, CATSProbeShims_XN_FLAG_RFC2253()) >= 0 else { return "" }
        return bio.text(limit: nameLimit)
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

    package static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date? {
        guard let time else { return nil }
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }

    package static func publicKey(of cert: OpaquePointer) -> PublicKeyFacts {
        guard let key = X509_get0_pubkey(cert) else { return PublicKeyFacts(algorithm: .other, bits: 0) }
        let bits = Int(EVP_PKEY_get_bits(key))
        switch EVP_PKEY_get_base_id(key) {
        case EVP_PKEY_RSA: return PublicKeyFacts(algorithm: .rsa, bits: bits)
        case EVP_PKEY_RSA_PSS: return PublicKeyFacts(algorithm: .rsaPSS, bits: bits)
        case EVP_PKEY_EC:
            var buffer = [CChar](repeating: 0, count: 80)
            var length = 0
            let curve = EVP_PKEY_get_utf8_string_param(key, "group", &buffer, buffer.count, &length) == 1
                ? String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
            return PublicKeyFacts(algorithm: .ec, bits: bits, curve: curve)
        case EVP_PKEY_ED25519: return PublicKeyFacts(algorithm: .ed25519, bits: bits)
        case EVP_PKEY_ED448: return PublicKeyFacts(algorithm: .ed448, bits: bits)
        case EVP_PKEY_DSA: return PublicKeyFacts(algorithm: .dsa, bits: bits)
        default: return PublicKeyFacts(algorithm: .other, bits: bits)
        }
    }

    package static func signature(of cert: OpaquePointer) -> (SignatureHash, String) {
        let nid = X509_get_signature_nid(cert)
        let name = OBJ_nid2ln(nid).map { String(cString: $0) } ?? "unknown"
        var digestNID: Int32 = 0, keyNID: Int32 = 0, securityBits: Int32 = 0
        var flags: UInt32 = 0
        guard X509_get_signature_info(cert, &digestNID, &keyNID, &securityBits, &flags) == 1 else {
            OpenSSLErrors.clear()
            return (.unknown, name)
        }
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

    package static func fingerprint(of cert: OpaquePointer) -> String {
        certificateSHA256(of: cert)?.hexEncoded(separator: ":") ?? ""
    }

    /// SHA-256 of the certificate's DER: its fingerprint, and its identity in a run's caches.
    package static func certificateSHA256(of cert: OpaquePointer) -> [UInt8]? {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(cert, EVP_sha256(), &digest, &length) == 1, length == 32 else { return nil }
        return Array(digest.prefix(32))
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

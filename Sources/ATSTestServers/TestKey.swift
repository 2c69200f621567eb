internal import COpenSSL
internal import OpenSSLSupport

/// The key pair a test certificate should carry.
package enum TestKey: Sendable, Hashable {
    case rsa(bits: Int)
    /// An RSASSA-PSS SubjectPublicKeyInfo (OID 1.2.840.113549.1.1.10), not rsaEncryption: it can
    /// only sign with rsa_pss_pss_*.
    case rsaPSS(bits: Int)
    case ec(curve: TestCurve)
    case ed25519
}

/// Named EC curves, by OpenSSL's group name.
package enum TestCurve: String, Sendable {
    case p256 = "prime256v1"
    case p384 = "secp384r1"
    case p521 = "secp521r1"
}

/// The hash a certificate is signed with (ignored for Ed25519, which has none).
package enum TestSignatureHash: Sendable {
    case sha1, sha256, sha384, sha512

    var digest: OpaquePointer? {
        switch self {
        case .sha1: EVP_sha1()
        case .sha256: EVP_sha256()
        case .sha384: EVP_sha384()
        case .sha512: EVP_sha512()
        }
    }
}

extension TestKey {
    /// Generates a fresh key pair. RSA sizes below OpenSSL's defaults (1024, 2047) are allowed on purpose.
    func generate() throws -> EVPKey {
        switch self {
        case .rsa(let bits): try EVPKey.generate(.rsa(bits: bits))
        case .rsaPSS(let bits): try EVPKey.generate(.rsaPSS(bits: bits))
        case .ec(let curve): try EVPKey.generate(.ec(curve: curve.rawValue))
        case .ed25519: try EVPKey.generate(.ed25519)
        }
    }
}

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
        let algorithm = switch self {
        case .rsa: "RSA"
        case .rsaPSS: "RSA-PSS"
        case .ec: "EC"
        case .ed25519: "ED25519"
        }
        let context = try checkNotNull(.allocation, "creating a \(algorithm) key context") {
            EVP_PKEY_CTX_new_from_name(nil, algorithm, nil)
        }
        defer { EVP_PKEY_CTX_free(context) }
        try check(.cryptography, "starting \(algorithm) key generation") { EVP_PKEY_keygen_init(context) }
        switch self {
        case .rsa(let bits), .rsaPSS(let bits):
            try check(.configuration, "setting the RSA key size \(bits)") { EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(bits)) }
        case .ec(let curve):
            try check(.configuration, "setting the curve \(curve.rawValue)") { EVP_PKEY_CTX_set_group_name(context, curve.rawValue) }
        case .ed25519:
            break
        }
        var key: OpaquePointer?
        try check(.cryptography, "generating a \(algorithm) key") { EVP_PKEY_keygen(context, &key) }
        guard let key else { throw OpenSSLError(.cryptography, "generating a \(algorithm) key") }
        return EVPKey(takingOwnership: key)
    }
}

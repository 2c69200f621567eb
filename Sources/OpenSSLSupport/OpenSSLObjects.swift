internal import COpenSSL
internal import CATSProbeShims

/// Owns one EVP_PKEY and frees it when released.
final class PrivateKey {
    let pointer: OpaquePointer

    init(takingOwnership pointer: OpaquePointer) { self.pointer = pointer }
    deinit { EVP_PKEY_free(pointer) }

    convenience init(pem: String) throws {
        let key = try withMemoryBIO(pem) { bio in
            try checkNotNull("reading a PEM private key") { PEM_read_bio_PrivateKey(bio, nil, nil, nil) }
        }
        self.init(takingOwnership: key)
    }

    var pem: String {
        get throws {
            try readingMemoryBIO { bio in
                try check("writing a PEM private key") { PEM_write_bio_PrivateKey(bio, pointer, nil, nil, 0, nil, nil) }
            }
        }
    }

    /// DER SubjectPublicKeyInfo of the public half.
    var subjectPublicKeyInfoDER: [UInt8] {
        get throws {
            let length = try check("encoding a public key") { i2d_PUBKEY(pointer, nil) }
            var bytes = [UInt8](repeating: 0, count: Int(length))
            try bytes.withUnsafeMutableBufferPointer { buffer in
                var cursor = buffer.baseAddress
                try check("encoding a public key") { i2d_PUBKEY(pointer, &cursor) }
            }
            return bytes
        }
    }

    var isRSA: Bool { EVP_PKEY_get_base_id(pointer) == EVP_PKEY_RSA }
    var isEd25519: Bool { EVP_PKEY_get_base_id(pointer) == EVP_PKEY_ED25519 }
}

/// Owns one X509 and frees it when released.
final class Certificate {
    let pointer: OpaquePointer

    init(takingOwnership pointer: OpaquePointer) { self.pointer = pointer }
    deinit { X509_free(pointer) }

    convenience init(pem: String) throws {
        let certificate = try withMemoryBIO(pem) { bio in
            try checkNotNull("reading a PEM certificate") { PEM_read_bio_X509(bio, nil, nil, nil) }
        }
        self.init(takingOwnership: certificate)
    }

    var pem: String {
        get throws {
            try readingMemoryBIO { bio in
                try check("writing a PEM certificate") { PEM_write_bio_X509(bio, pointer) }
            }
        }
    }

    var der: [UInt8] {
        get throws {
            let length = try check("encoding a certificate") { i2d_X509(pointer, nil) }
            var bytes = [UInt8](repeating: 0, count: Int(length))
            try bytes.withUnsafeMutableBufferPointer { buffer in
                var cursor = buffer.baseAddress
                try check("encoding a certificate") { i2d_X509(pointer, &cursor) }
            }
            return bytes
        }
    }

    /// A new reference to the same certificate, for APIs that take ownership.
    func retainedPointer() -> OpaquePointer {
        X509_up_ref(pointer)
        return pointer
    }
}

/// Hands `text` to OpenSSL as a read-only memory BIO.
func withMemoryBIO<Result>(_ text: String, _ body: (OpaquePointer) throws -> Result) throws -> Result {
    let bytes = Array(text.utf8)
    return try bytes.withUnsafeBytes { raw in
        let bio = try checkNotNull("opening a memory BIO") { BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) }
        defer { BIO_free(bio) }
        return try body(bio)
    }
}

/// Lets `body` write into a memory BIO and returns what it wrote as text.
func readingMemoryBIO(_ body: (OpaquePointer) throws -> Void) throws -> String {
    let bio = try checkNotNull("opening a memory BIO") { BIO_new(BIO_s_mem()) }
    defer { BIO_free(bio) }
    try body(bio)
    var data: UnsafeMutablePointer<CChar>?
    let length = CATSProbeShims_BIO_get_mem_data(bio, &data)
    guard let data, length > 0 else { return "" }
    return String(decoding: UnsafeRawBufferPointer(start: data, count: Int(length)), as: UTF8.self)
}

/// SHA-256 of `bytes`, through OpenSSL so the test library needs no other crypto.
func sha256(_ bytes: [UInt8]) throws -> [UInt8] {
    var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
    var length: UInt32 = 0
    try bytes.withUnsafeBytes { raw in
        _ = try check("hashing") { EVP_Digest(raw.baseAddress, raw.count, &digest, &length, EVP_sha256(), nil) }
    }
    return Array(digest.prefix(Int(length)))
}

internal import COpenSSL
internal import CATSProbeShims

// Every OpenSSL object the probe and the test servers keep is held by one of these classes: each
// owns one reference to one C object and frees it in deinit, so no caller has to remember to.
// None lends its pointer outside OpenSSLSupport (issue 39, item 7; OpenSSLOwnershipTests): what
// callers do with a certificate, a key, a BIO or a stack is a method here or in
// CertificateFields.swift, SSLObjects.swift and X509Verification.swift. Inside the module,
// `pointer` is used while the owner is in scope, never stored past it.

/// Owns one reference to an X509 and frees it when released. Sendable: once built, a certificate
/// is only read, and OpenSSL locks the one cache it fills on reading (its extensions).
package final class X509Certificate: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Takes over a reference the caller owned (d2i_X509, PEM_read_bio_X509, X509_dup, a get1 call).
    init(takingOwnership pointer: OpaquePointer) { self.pointer = pointer }

    /// Takes a new reference to a certificate another owner holds (a get0 call, an SSL's peer
    /// chain): it then lives as long as either owner.
    init(retaining pointer: OpaquePointer) {
        X509_up_ref(pointer)
        self.pointer = pointer
    }

    deinit { X509_free(pointer) }

    package convenience init(der: [UInt8]) throws(OpenSSLError) {
        let certificate = try der.withUnsafeBufferPointer { buffer throws(OpenSSLError) in
            try checkNotNull(.decoding, "reading a DER certificate") { () -> OpaquePointer? in
                var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
                return d2i_X509(nil, &cursor, buffer.count)
            }
        }
        self.init(takingOwnership: certificate)
    }

    package convenience init(pem: String) throws(OpenSSLError) {
        let bio = try MemoryBIO(copying: Array(pem.utf8))
        self.init(takingOwnership: try checkNotNull(.decoding, "reading a PEM certificate") { PEM_read_bio_X509(bio.pointer, nil, nil, nil) })
    }

    /// The next PEM certificate in `bio`, or nil at its end (OpenSSL then queues "no start line").
    package static func readPEM(from bio: MemoryBIO) -> X509Certificate? {
        PEM_read_bio_X509(bio.pointer, nil, nil, nil).map(X509Certificate.init(takingOwnership:))
    }

    /// A reference to each of the first `limit` certificates of a stack another owner holds.
    static func retaining(stack: OpaquePointer, limit: Int) -> [X509Certificate] {
        (0..<min(CATSProbeShims_sk_X509_num(stack), Int32(clamping: limit))).compactMap { index in
            CATSProbeShims_sk_X509_value(stack, index).map(X509Certificate.init(retaining:))
        }
    }

    /// Takes over a stack of owned certificates (a get1 chain): keeps the first `limit`, frees
    /// the stack and the rest.
    static func takingOwnership(stack: OpaquePointer, limit: Int) -> [X509Certificate] {
        let kept = retaining(stack: stack, limit: limit)
        CATSProbeShims_sk_X509_pop_free(stack)
        return kept
    }

    package var pem: String {
        get throws(OpenSSLError) {
            let bio = try MemoryBIO()
            try check(.encoding, "writing a PEM certificate") { PEM_write_bio_X509(bio.pointer, pointer) }
            return bio.text()
        }
    }

    package var der: [UInt8] {
        get throws(OpenSSLError) { try encoded("encoding a certificate") { i2d_X509(pointer, $0) } }
    }

    /// A new reference for an API that takes ownership of what it is given
    /// (SSL_CTX_add_extra_chain_cert).
    func retainedPointer() -> OpaquePointer {
        X509_up_ref(pointer)
        return pointer
    }
}

/// DER from an OpenSSL i2d function: called once for the length, then to write the bytes.
func encoded(_ operation: String,
                     _ i2d: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32) throws(OpenSSLError) -> [UInt8] {
    let length = try check(.encoding, operation) { i2d(nil) }
    var bytes = [UInt8](repeating: 0, count: Int(length))
    try bytes.withUnsafeMutableBufferPointer { buffer throws(OpenSSLError) in
        var cursor = buffer.baseAddress
        try check(.encoding, operation) { i2d(&cursor) }
    }
    return bytes
}

/// Owns one reference to an EVP_PKEY (a key pair, or a public key alone) and frees it when released.
package final class EVPKey: @unchecked Sendable {
    let pointer: OpaquePointer

    init(takingOwnership pointer: OpaquePointer) { self.pointer = pointer }

    init(retaining pointer: OpaquePointer) {
        EVP_PKEY_up_ref(pointer)
        self.pointer = pointer
    }

    deinit { EVP_PKEY_free(pointer) }

    package convenience init(privateKeyPEM pem: String) throws(OpenSSLError) {
        let bio = try MemoryBIO(copying: Array(pem.utf8))
        self.init(takingOwnership: try checkNotNull(.decoding, "reading a PEM private key") { PEM_read_bio_PrivateKey(bio.pointer, nil, nil, nil) })
    }

    /// A public key from its DER SubjectPublicKeyInfo.
    package convenience init(publicKeyDER der: [UInt8]) throws(OpenSSLError) {
        let key = try der.withUnsafeBufferPointer { buffer throws(OpenSSLError) in
            try checkNotNull(.decoding, "reading a DER public key") { () -> OpaquePointer? in
                var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
                return d2i_PUBKEY(nil, &cursor, buffer.count)
            }
        }
        self.init(takingOwnership: key)
    }

    package var privateKeyPEM: String {
        get throws(OpenSSLError) {
            let bio = try MemoryBIO()
            try check(.encoding, "writing a PEM private key") { PEM_write_bio_PrivateKey(bio.pointer, pointer, nil, nil, 0, nil, nil) }
            return bio.text()
        }
    }

    /// DER SubjectPublicKeyInfo of the public half.
    package var subjectPublicKeyInfoDER: [UInt8] {
        get throws(OpenSSLError) { try encoded("encoding a public key") { i2d_PUBKEY(pointer, $0) } }
    }

    /// OpenSSL's EVP_PKEY_* type (EVP_PKEY_RSA, EVP_PKEY_EC, ...).
    package var baseID: Int32 { EVP_PKEY_get_base_id(pointer) }
    package var bits: Int { Int(EVP_PKEY_get_bits(pointer)) }
    package var isRSA: Bool { baseID == EVP_PKEY_RSA }
    package var isEd25519: Bool { baseID == EVP_PKEY_ED25519 }
}

/// Owns one memory BIO: an in-memory buffer OpenSSL reads (PEM in) or writes (PEM, names out).
package final class MemoryBIO {
    let pointer: OpaquePointer

    init(takingOwnership pointer: OpaquePointer) { self.pointer = pointer }

    /// An empty buffer to write into.
    package convenience init() throws(OpenSSLError) {
        self.init(takingOwnership: try checkNotNull(.allocation, "opening a memory BIO") { BIO_new(BIO_s_mem()) })
    }

    /// A buffer holding its own copy of `bytes`, which reads as at its end once they are read
    /// (BIO_new_mem_buf would borrow the caller's storage instead).
    package convenience init(copying bytes: [UInt8]) throws(OpenSSLError) {
        try self.init()
        if !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { BIO_write(pointer, $0.baseAddress, Int32(clamping: $0.count)) }
            try check(written == Int32(clamping: bytes.count), .configuration, "filling a memory BIO")
        }
        _ = CATSProbeShims_BIO_set_mem_eof_return(pointer, 0)
    }

    deinit { BIO_free(pointer) }

    /// Each PEM block left in the buffer, in order, as OpenSSL's PEM_read_bio reads them: its
    /// label ("CERTIFICATE", "PKCS7", ...) and its decoded bytes. Reading stops at the end, at a
    /// block OpenSSL cannot read, or when `body` returns false.
    package func readPEMBlocks<E: Error>(_ body: (_ label: String, _ der: [UInt8]) throws(E) -> Bool) throws(E) {
        while true {
            var name: UnsafeMutablePointer<CChar>?
            var header: UnsafeMutablePointer<CChar>?
            var data: UnsafeMutablePointer<UInt8>?
            var length = 0
            guard PEM_read_bio(pointer, &name, &header, &data, &length) == 1 else { return }
            defer {
                CATSProbeShims_OPENSSL_free(name)
                CATSProbeShims_OPENSSL_free(header)
                CATSProbeShims_OPENSSL_free(data)
            }
            let label = name.map { String(cString: $0) } ?? ""
            let der = data.map { Array(UnsafeBufferPointer(start: $0, count: length)) } ?? []
            guard try body(label, der) else { return }
        }
    }

    /// A new reference for an API that takes ownership of what it is given (SSL_set_bio).
    func retainedPointer() -> OpaquePointer {
        BIO_up_ref(pointer)
        return pointer
    }

    /// What was written, at most `limit` bytes, as UTF-8 text.
    package func text(limit: Int = .max) -> String {
        var data: UnsafeMutablePointer<CChar>?
        let length = CATSProbeShims_BIO_get_mem_data(pointer, &data)
        guard let data, length > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: min(Int(length), limit)), as: UTF8.self)
    }
}

/// A STACK_OF(X509) lent to OpenSSL (the untrusted certificates of a verification): it keeps
/// each certificate alive for as long as the stack lives and frees only the stack itself.
package final class X509Stack {
    let pointer: OpaquePointer
    package let certificates: [X509Certificate]

    package init(_ certificates: [X509Certificate]) throws(OpenSSLError) {
        pointer = try checkNotNull(.allocation, "allocating a certificate stack") { CATSProbeShims_sk_X509_new_null() }
        self.certificates = certificates
        for certificate in certificates {
            try check(CATSProbeShims_sk_X509_push(pointer, certificate.pointer) > 0, .configuration, "adding to a certificate stack")
        }
    }

    deinit { CATSProbeShims_sk_X509_free(pointer) }
}

/// SHA-256, through OpenSSL so no other crypto library is needed.
package enum Digest {
    package static func sha256(_ bytes: UnsafeRawBufferPointer) throws(OpenSSLError) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        try check(.cryptography, "hashing") { EVP_Digest(bytes.baseAddress, bytes.count, &digest, &length, EVP_sha256(), nil) }
        return Array(digest.prefix(Int(length)))
    }

    package static func sha256(_ bytes: [UInt8]) throws(OpenSSLError) -> [UInt8] {
        try bytes.withUnsafeBytes { raw in Result { () throws(OpenSSLError) in try sha256(raw) } }.get()
    }
}

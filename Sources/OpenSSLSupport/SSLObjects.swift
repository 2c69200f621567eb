internal import COpenSSL
internal import CATSProbeShims

// The SSL_CTX and SSL owners. Neither lends its pointer: each OpenSSL call the probe, the cipher
// catalog or the test servers make on a context or a connection is a method here, so no code
// outside OpenSSLSupport holds an SSL_CTX* or SSL* (issue 39, item 7; OpenSSLOwnershipTests).
// The setters return OpenSSL's own result, for the caller's `check` or its own message.

/// Owns one SSL_CTX. Sendable: OpenSSL allows SSL_new from many threads on a context that is no
/// longer being configured.
package final class SSLContext: @unchecked Sendable {
    package enum Role: Sendable { case client, server }

    private let pointer: OpaquePointer
    /// What the context's callbacks read (the OCSP response it staples, its ALPN list), released
    /// after the SSL_CTX is freed.
    private var callbackData: [AnyObject] = []

    package init(_ role: Role) throws(OpenSSLError) {
        pointer = try checkNotNull(.allocation, "creating an SSL_CTX") {
            SSL_CTX_new(role == .client ? TLS_client_method() : TLS_server_method())
        }
    }

    deinit { SSL_CTX_free(pointer) }

    /// The SSL_CTX, for one call made inside OpenSSLSupport (SSL_new; tests).
    func withPointer<Result>(_ body: (OpaquePointer) throws -> Result) rethrows -> Result { try body(pointer) }

    package func setSecurityLevel(_ level: Int32) { SSL_CTX_set_security_level(pointer, level) }
    @discardableResult
    package func setOptions(_ options: UInt64) -> UInt64 { SSL_CTX_set_options(pointer, options) }
    package func setMinProtocolVersion(_ version: Int32) -> Int { CATSProbeShims_SSL_CTX_set_min_proto_version(pointer, version) }
    package func setMaxProtocolVersion(_ version: Int32) -> Int { CATSProbeShims_SSL_CTX_set_max_proto_version(pointer, version) }
    /// TLS 1.2 and older suites, in OpenSSL's cipher-string syntax.
    package func setCipherList(_ list: String) -> Int32 { SSL_CTX_set_cipher_list(pointer, list) }
    /// TLS 1.3 suites.
    package func setCipherSuites(_ suites: String) -> Int32 { SSL_CTX_set_ciphersuites(pointer, suites) }
    package func setGroupsList(_ list: String) -> Int { CATSProbeShims_SSL_CTX_set1_groups_list(pointer, list) }
    package func setSignatureAlgorithmsList(_ list: String) -> Int { CATSProbeShims_SSL_CTX_set1_sigalgs_list(pointer, list) }
    /// The client's ALPN offer in wire format; 0 on success, as SSL_CTX_set_alpn_protos says it.
    package func setALPNProtocols(_ wire: [UInt8]) -> Int32 { SSL_CTX_set_alpn_protos(pointer, wire, UInt32(wire.count)) }

    /// libssl's chain verification, replaced: with SSL_VERIFY_NONE libssl still runs
    /// X509_verify_cert on every served chain (ssl_verify_cert_chain, from
    /// tls_post_process_server_certificate) and keeps only its result. The callback stands in for
    /// X509_verify_cert and verifies nothing: the SSL's verify result reads "application
    /// verification failure" and it has no verified chain.
    package func skipChainVerification() {
        SSL_CTX_set_verify(pointer, SSL_VERIFY_NONE, nil)
        SSL_CTX_set_cert_verify_callback(pointer, SSLContext.noVerification, nil)
    }

    static let noVerification: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32 = { storeContext, _ in
        X509_STORE_CTX_set_error(storeContext, X509_V_ERR_APPLICATION_VERIFICATION)
        return 1
    }

    /// A server's CertificateRequest; a client without a certificate (or with any) may go on.
    package func requestAnyClientCertificate() { SSL_CTX_set_verify(pointer, SSL_VERIFY_PEER, { _, _ in 1 }) }
    package func setDHAuto() -> Int { CATSProbeShims_SSL_CTX_set_dh_auto(pointer, 1) }
    package func useCertificate(_ certificate: X509Certificate) -> Int32 { SSL_CTX_use_certificate(pointer, certificate.pointer) }
    package func usePrivateKey(_ key: EVPKey) -> Int32 { SSL_CTX_use_PrivateKey(pointer, key.pointer) }

    /// Adds a certificate to the chain a server sends; the context takes a reference of its own.
    package func addExtraChainCertificate(_ certificate: X509Certificate) -> Int {
        let reference = certificate.retainedPointer()
        let result = CATSProbeShims_SSL_CTX_add_extra_chain_cert(pointer, reference)
        if result <= 0 { X509_free(reference) }  // taken only on success
        return result
    }

    /// Serverinfo (SSL_CTX_use_serverinfo_ex) of `version`: extensions the server sends.
    package func useServerInfo(version: UInt32, _ serverinfo: [UInt8]) -> Int32 {
        SSL_CTX_use_serverinfo_ex(pointer, version, serverinfo, serverinfo.count)
    }

    /// Staples `der` (an OCSP response) to every handshake whose client sent status_request.
    package func stapleOCSPResponse(_ der: [UInt8]) -> Int {
        let box = StapleBox(der)
        callbackData.append(box)
        CATSProbeShims_SSL_CTX_set_tlsext_status_arg(pointer, Unmanaged.passUnretained(box).toOpaque())
        return CATSProbeShims_SSL_CTX_set_tlsext_status_cb(pointer) { ssl, argument in
            guard let ssl, let argument else { return SSL_TLSEXT_ERR_NOACK }
            let der = Unmanaged<StapleBox>.fromOpaque(argument).takeUnretainedValue().der
            // OpenSSL frees the copy it is given.
            guard !der.isEmpty, let copy = CRYPTO_malloc(der.count, nil, 0) else { return SSL_TLSEXT_ERR_NOACK }
            der.withUnsafeBytes { copy.copyMemory(from: $0.baseAddress!, byteCount: der.count) }
            let accepted = CATSProbeShims_SSL_set_tlsext_status_ocsp_resp(ssl, copy.assumingMemoryBound(to: UInt8.self), der.count)
            if accepted <= 0 { CRYPTO_free(copy, nil, 0) }
            return accepted > 0 ? SSL_TLSEXT_ERR_OK : SSL_TLSEXT_ERR_NOACK
        }
    }

    /// A server's ALPN choice: the first of `protocols` the client offered (server preference);
    /// none offered is a fatal alert when `fatal`, else no ALPN.
    package func selectALPN(_ protocols: [String], fatal: Bool) {
        let box = ALPNBox(protocols, fatal: fatal)
        callbackData.append(box)
        SSL_CTX_set_alpn_select_cb(pointer, { _, out, outLength, offered, offeredLength, argument in
            guard let out, let outLength, let offered, let argument else { return SSL_TLSEXT_ERR_NOACK }
            let box = Unmanaged<ALPNBox>.fromOpaque(argument).takeUnretainedValue()
            let matched = box.wire.withUnsafeBufferPointer { server in
                var selected: UnsafeMutablePointer<UInt8>?
                let result = SSL_select_next_proto(&selected, outLength, server.baseAddress, UInt32(server.count),
                                                   offered, offeredLength)
                guard result == OPENSSL_NPN_NEGOTIATED, let selected else { return false }
                out.pointee = UnsafePointer(selected)  // into box.wire, which outlives the handshake
                return true
            }
            if matched { return SSL_TLSEXT_ERR_OK }
            return box.fatal ? SSL_TLSEXT_ERR_ALERT_FATAL : SSL_TLSEXT_ERR_NOACK
        }, Unmanaged.passUnretained(box).toOpaque())
    }
}

/// The DER OCSP response a context staples.
private final class StapleBox {
    let der: [UInt8]
    init(_ der: [UInt8]) { self.der = der }
}

/// A server's ALPN list in wire format; SSL_select_next_proto points into it.
private final class ALPNBox {
    let wire: [UInt8]
    let fatal: Bool
    init(_ protocols: [String], fatal: Bool) {
        wire = protocols.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) }
        self.fatal = fatal
    }
}

/// Owns one SSL (a connection's state): made from a context, freed with everything the SSL owns
/// (the BIO given to `setBIO`). Noncopyable and stored inline: no allocation beyond OpenSSL's own
/// per handshake. Its methods are the SSL calls the probe and the test servers make.
package struct SSLObject: ~Copyable {
    private let pointer: OpaquePointer

    package init(context: SSLContext) throws(OpenSSLError) {
        pointer = try checkNotNull(.allocation, "creating an SSL") { context.withPointer { SSL_new($0) } }
    }

    deinit { SSL_free(pointer) }

    /// The SSL, for one call made inside OpenSSLSupport (tests).
    func withPointer<Result>(_ body: (OpaquePointer) throws -> Result) rethrows -> Result { try body(pointer) }

    // The connection.

    /// Reads and writes through `bio` in both directions; the SSL takes its one reference and
    /// frees it with itself.
    package func setBIO(_ bio: OpaquePointer) { SSL_set_bio(pointer, bio, bio) }
    package func setFileDescriptor(_ descriptor: Int32) -> Int32 { SSL_set_fd(pointer, descriptor) }
    package func connect() -> Int32 { SSL_connect(pointer) }
    package func accept() -> Int32 { SSL_accept(pointer) }
    package func doHandshake() -> Int32 { SSL_do_handshake(pointer) }
    package func renegotiate() -> Int32 { SSL_renegotiate(pointer) }
    @discardableResult
    package func shutdown() -> Int32 { SSL_shutdown(pointer) }
    package func read(into buffer: UnsafeMutableRawBufferPointer) -> Int32 {
        SSL_read(pointer, buffer.baseAddress, Int32(clamping: buffer.count))
    }
    package func write(_ bytes: UnsafeRawBufferPointer) -> Int32 {
        SSL_write(pointer, bytes.baseAddress, Int32(clamping: bytes.count))
    }
    /// SSL_get_error for a call's `result`.
    package func error(for result: Int32) -> Int32 { SSL_get_error(pointer, result) }

    // What a client asks for.

    /// SNI.
    package func setHostName(_ name: String) { _ = CATSProbeShims_SSL_set_tlsext_host_name(pointer, name) }
    /// The protocol range this SSL offers (its context's otherwise); 1 on success.
    package func setMinProtocolVersion(_ version: Int32) -> Int { CATSProbeShims_SSL_set_min_proto_version(pointer, version) }
    package func setMaxProtocolVersion(_ version: Int32) -> Int { CATSProbeShims_SSL_set_max_proto_version(pointer, version) }

    /// Asks for SCTs (and, as OpenSSL does with it, an OCSP staple); permissive: never fails.
    package func requestCertificateStatus() {
        _ = SSL_enable_ct(pointer, Int32(SSL_CT_VALIDATION_PERMISSIVE))
        _ = CATSProbeShims_SSL_set_tlsext_status_type(pointer, TLSEXT_STATUSTYPE_ocsp)
    }

    // What the handshake negotiated and was served.

    /// The peer's chain as served, a reference to each of its first `limit` certificates.
    package func peerCertificateChain(limit: Int) -> [X509Certificate] {
        SSL_get_peer_cert_chain(pointer).map { X509Certificate.retaining(stack: $0, limit: limit) } ?? []
    }
    /// The SSL_CIPHER negotiated: one of libssl's static table, not owned by the SSL.
    package var currentCipher: OpaquePointer? { SSL_get_current_cipher(pointer) }
    package var version: Int32 { SSL_version(pointer) }
    /// The protocol ALPN selected, nil when none.
    package var selectedALPN: String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(pointer, &data, &length)
        return data.flatMap { length > 0 ? String(decoding: UnsafeBufferPointer(start: $0, count: Int(length)), as: UTF8.self) : nil }
    }
    /// The negotiated group's NID (0 or NID_undef when none).
    package var negotiatedGroup: Int32 { CATSProbeShims_SSL_get_negotiated_group(pointer) }
    /// libssl's name for a group NID.
    package func groupName(_ group: Int32) -> String? { SSL_group_to_name(pointer, group).map { String(cString: $0) } }
    /// The peer's ephemeral key (a TLS 1.2 DHE key), owned.
    package var peerTemporaryKey: EVPKey? {
        var key: OpaquePointer?
        guard CATSProbeShims_SSL_get_peer_tmp_key(pointer, &key) == 1, let key else { return nil }
        return EVPKey(takingOwnership: key)
    }
    /// The peer's handshake signature: its EVP_PKEY type and digest NIDs; nil when none.
    package var peerSignature: (type: Int32, digest: Int32)? {
        var type: Int32 = NID_undef
        var digest: Int32 = NID_undef
        guard SSL_get_peer_signature_type_nid(pointer, &type) == 1 else { return nil }
        _ = CATSProbeShims_SSL_get_peer_signature_nid(pointer, &digest)
        return (type, digest)
    }
    /// The SCTs the peer delivered (STACK_OF(SCT), owned by the SSL), for `body` alone.
    package func withPeerSCTs<Result>(_ body: (OpaquePointer?) -> Result) -> Result { body(SSL_get0_peer_scts(pointer)) }
    /// The stapled OCSP response's bytes (owned by the SSL), for `body` alone; nil when none.
    package func withStapledOCSPResponse<Result>(_ body: (UnsafeBufferPointer<UInt8>?) -> Result) -> Result {
        var bytes: UnsafePointer<UInt8>?
        let length = CATSProbeShims_SSL_get_tlsext_status_ocsp_resp(pointer, &bytes)
        guard length > 0, let bytes else { return body(nil) }
        return body(UnsafeBufferPointer(start: bytes, count: length))
    }
    /// The suites this SSL would offer, as libssl's static SSL_CIPHERs.
    package var ciphers: [OpaquePointer] {
        guard let list = SSL_get_ciphers(pointer) else { return [] }
        return (0..<CATSProbeShims_sk_SSL_CIPHER_num(list)).compactMap { CATSProbeShims_sk_SSL_CIPHER_value(list, $0) }
    }
}

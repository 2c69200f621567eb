import Foundation
internal import COpenSSL
internal import OpenSSLSupport
internal import CATSProbeShims

/// The DER OCSP response a context staples; retained for as long as the SSL_CTX lives.
private final class StapleBox {
    let der: [UInt8]
    init(_ der: [UInt8]) { self.der = der }
}

/// The server's ALPN list in wire format; SSL_select_next_proto points into it, so it lives as
/// long as the SSL_CTX.
private final class ALPNBox {
    let wire: [UInt8]
    let fatal: Bool
    init(_ protocols: [String], fatal: Bool) {
        wire = protocols.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) }
        self.fatal = fatal
    }
}

/// Owns the server SSL_CTX built from a configuration. An SSL_CTX is safe to share between
/// threads once configured, hence @unchecked Sendable.
final class ServerContext: @unchecked Sendable {
    let context: SSLContext
    var pointer: OpaquePointer { context.pointer }
    private var staple: Unmanaged<StapleBox>?
    private var alpn: Unmanaged<ALPNBox>?

    init(_ configuration: TLSServerConfiguration) throws {
        context = try SSLContext(.server)
        do {
            try configure(configuration)
        } catch {
            staple?.release()
            alpn?.release()
            throw error
        }
    }

    deinit {
        staple?.release()
        alpn?.release()
    }

    private func configure(_ configuration: TLSServerConfiguration) throws {
        // Level 0 so the server can offer what ATS must reject: TLS 1.0, SHA-1, RSA-1024, static RSA.
        SSL_CTX_set_security_level(pointer, 0)
        let noCompression: UInt64 = 1 << 17  // SSL_OP_NO_COMPRESSION; the macro does not import
        SSL_CTX_set_options(pointer, noCompression)
        if configuration.requestClientCertificate {
            // CertificateRequest in the handshake; a client without a certificate may go on.
            SSL_CTX_set_verify(pointer, SSL_VERIFY_PEER, { _, _ in 1 })
        }
        try check("setting the minimum version") {
            CATSProbeShims_SSL_CTX_set_min_proto_version(pointer, Int32(configuration.minVersion.rawValue))
        }
        try check("setting the maximum version") {
            CATSProbeShims_SSL_CTX_set_max_proto_version(pointer, Int32(configuration.maxVersion.rawValue))
        }
        let cipherList = (configuration.cipherList ?? "ALL") + ":@SECLEVEL=0"
        try check("setting the cipher list \(cipherList)") { SSL_CTX_set_cipher_list(pointer, cipherList) }
        if let suites = configuration.tls13Suites {
            try check("setting the TLS 1.3 suites \(suites)") { SSL_CTX_set_ciphersuites(pointer, suites) }
        }
        if let groups = configuration.groups {
            try check("setting the groups \(groups)") { CATSProbeShims_SSL_CTX_set1_groups_list(pointer, groups) }
        }
        if let algorithms = configuration.signatureAlgorithms {
            try check("setting the signature algorithms \(algorithms)") { CATSProbeShims_SSL_CTX_set1_sigalgs_list(pointer, algorithms) }
        }
        try check("enabling DHE parameters") { CATSProbeShims_SSL_CTX_set_dh_auto(pointer, 1) }

        let identity = configuration.identity
        let leaf = try X509Certificate(pem: identity.certificatePEM)
        let key = try EVPKey(privateKeyPEM: identity.privateKeyPEM)
        try check("using the certificate") { SSL_CTX_use_certificate(pointer, leaf.pointer) }
        try check("using the private key") { SSL_CTX_use_PrivateKey(pointer, key.pointer) }
        if configuration.sendChain {
            for pem in identity.chainPEM {
                let certificate = try X509Certificate(pem: pem)
                try check("adding a chain certificate") {
                    CATSProbeShims_SSL_CTX_add_extra_chain_cert(pointer, certificate.retainedPointer())
                }
            }
        }
        if let der = configuration.ocspResponseDER {
            try enableStapling(der)
        }
        if let list = configuration.sctListExtension {
            try serveSCTExtension(list)
        }
        if let protocols = configuration.alpn {
            selectALPN(protocols, fatal: configuration.alpnMismatchIsFatal)
        }
    }

    /// Picks the first of the server's protocols the client offered (server preference).
    private func selectALPN(_ protocols: [String], fatal: Bool) {
        let box = Unmanaged.passRetained(ALPNBox(protocols, fatal: fatal))
        alpn = box
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
        }, box.toOpaque())
    }

    private func enableStapling(_ der: [UInt8]) throws {
        let box = Unmanaged.passRetained(StapleBox(der))
        staple = box
        CATSProbeShims_SSL_CTX_set_tlsext_status_arg(pointer, box.toOpaque())
        // Called only when the client sent status_request; OpenSSL frees the copy it is given.
        try check("installing the OCSP status callback") {
            CATSProbeShims_SSL_CTX_set_tlsext_status_cb(pointer) { ssl, argument in
                guard let ssl, let argument else { return SSL_TLSEXT_ERR_NOACK }
                let der = Unmanaged<StapleBox>.fromOpaque(argument).takeUnretainedValue().der
                guard let copy = CRYPTO_malloc(der.count, nil, 0) else { return SSL_TLSEXT_ERR_NOACK }
                der.withUnsafeBytes { copy.copyMemory(from: $0.baseAddress!, byteCount: der.count) }
                let accepted = CATSProbeShims_SSL_set_tlsext_status_ocsp_resp(
                    ssl, copy.assumingMemoryBound(to: UInt8.self), der.count)
                if accepted <= 0 { CRYPTO_free(copy, nil, 0) }
                return accepted > 0 ? SSL_TLSEXT_ERR_OK : SSL_TLSEXT_ERR_NOACK
            }
        }
    }

    /// Serverinfo v2 carries extension 18 for the current certificate: in the TLS 1.2 ServerHello
    /// and the TLS 1.3 leaf CertificateEntry, and OpenSSL sends it only when the client asked.
    private func serveSCTExtension(_ list: [UInt8]) throws {
        let context = UInt32(SSL_EXT_CLIENT_HELLO | SSL_EXT_TLS1_2_SERVER_HELLO | SSL_EXT_TLS1_3_CERTIFICATE)
        var serverinfo: [UInt8] = (0..<4).reversed().map { UInt8(truncatingIfNeeded: context >> (8 * UInt32($0))) }
        serverinfo += uint16(18) + uint16(list.count) + list
        try check("installing the SCT extension") {
            SSL_CTX_use_serverinfo_ex(pointer, UInt32(SSL_SERVERINFOV2), serverinfo, serverinfo.count)
        }
    }
}

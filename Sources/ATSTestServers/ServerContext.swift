import Foundation
internal import COpenSSL
internal import OpenSSLSupport
internal import CATSProbeShims

/// Owns the server SSL_CTX built from a configuration. An SSL_CTX is safe to share between
/// threads once configured, hence @unchecked Sendable.
final class ServerContext: @unchecked Sendable {
    let context: SSLContext

    init(_ configuration: TLSServerConfiguration) throws {
        context = try SSLContext(.server)
        try configure(configuration)
    }

    private func configure(_ configuration: TLSServerConfiguration) throws {
        // Level 0 so the server can offer what ATS must reject: TLS 1.0, SHA-1, RSA-1024, static RSA.
        context.setSecurityLevel(0)
        let noCompression: UInt64 = 1 << 17  // SSL_OP_NO_COMPRESSION; the macro does not import
        context.setOptions(noCompression)
        if configuration.requestClientCertificate {
            // CertificateRequest in the handshake; a client without a certificate may go on.
            context.requestAnyClientCertificate()
        }
        try check(.configuration, "setting the minimum version") { context.setMinProtocolVersion(Int32(configuration.minVersion.rawValue)) }
        try check(.configuration, "setting the maximum version") { context.setMaxProtocolVersion(Int32(configuration.maxVersion.rawValue)) }
        let cipherList = (configuration.cipherList ?? "ALL") + ":@SECLEVEL=0"
        try check(.configuration, "setting the cipher list \(cipherList)") { context.setCipherList(cipherList) }
        if let suites = configuration.tls13Suites {
            try check(.configuration, "setting the TLS 1.3 suites \(suites)") { context.setCipherSuites(suites) }
        }
        if let groups = configuration.groups {
            try check(.configuration, "setting the groups \(groups)") { context.setGroupsList(groups) }
        }
        if let algorithms = configuration.signatureAlgorithms {
            try check(.configuration, "setting the signature algorithms \(algorithms)") { context.setSignatureAlgorithmsList(algorithms) }
        }
        try check(.configuration, "enabling DHE parameters") { context.setDHAuto() }

        let identity = configuration.identity
        let leaf = try X509Certificate(pem: identity.certificatePEM)
        let key = try EVPKey(privateKeyPEM: identity.privateKeyPEM)
        try check(.configuration, "using the certificate") { context.useCertificate(leaf) }
        try check(.configuration, "using the private key") { context.usePrivateKey(key) }
        if configuration.sendChain {
            for pem in identity.chainPEM {
                let certificate = try X509Certificate(pem: pem)
                try check(.configuration, "adding a chain certificate") { context.addExtraChainCertificate(certificate) }
            }
        }
        if let der = configuration.ocspResponseDER {
            // Called only when the client sent status_request.
            try check(.configuration, "installing the OCSP status callback") { context.stapleOCSPResponse(der) }
        }
        if let list = configuration.sctListExtension {
            try serveSCTExtension(list)
        }
        if let protocols = configuration.alpn {
            context.selectALPN(protocols, fatal: configuration.alpnMismatchIsFatal)
        }
    }

    /// Serverinfo v2 carries extension 18 for the current certificate: in the TLS 1.2 ServerHello
    /// and the TLS 1.3 leaf CertificateEntry, and OpenSSL sends it only when the client asked.
    private func serveSCTExtension(_ list: [UInt8]) throws {
        let contexts = UInt32(SSL_EXT_CLIENT_HELLO | SSL_EXT_TLS1_2_SERVER_HELLO | SSL_EXT_TLS1_3_CERTIFICATE)
        var serverinfo: [UInt8] = (0..<4).reversed().map { UInt8(truncatingIfNeeded: contexts >> (8 * UInt32($0))) }
        serverinfo += uint16(18) + uint16(list.count) + list
        try check(.configuration, "installing the SCT extension") { context.useServerInfo(version: UInt32(SSL_SERVERINFOV2), serverinfo) }
    }
}

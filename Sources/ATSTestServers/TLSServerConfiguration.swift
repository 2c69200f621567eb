import TLSFacts

/// What a `TestTLSServer` serves and how.
package struct TLSServerConfiguration: Sendable {
    package var identity: TestIdentity
    package var minVersion: TLSVersion
    package var maxVersion: TLSVersion
    /// OpenSSL cipher string for TLS <= 1.2 ("ECDHE-RSA-AES256-SHA"); nil = "ALL". "@SECLEVEL=0" is appended.
    package var cipherList: String?
    /// TLS 1.3 suites ("TLS_AES_128_GCM_SHA256"); nil = OpenSSL default.
    package var tls13Suites: String?
    /// Key exchange groups ("P-384", "ffdhe2048:X25519"); nil = OpenSSL default.
    package var groups: String?
    /// Signature algorithms the server may sign its handshake with ("ECDSA+SHA1",
    /// "rsa_pss_pss_sha256"); nil = OpenSSL default.
    package var signatureAlgorithms: String?
    /// Send the intermediates after the leaf (false simulates an incomplete chain).
    package var sendChain: Bool
    /// DER OCSP response to staple when the client asks (status_request); nil = none.
    package var ocspResponseDER: [UInt8]?
    /// Serialized SCT list (RFC 6962 TLS encoding, see `serializedSCTList`) for the
    /// signed_certificate_timestamp extension, sent only when the client asks; nil = none.
    package var sctListExtension: [UInt8]?
    /// Application protocols the server accepts, in its order of preference ("h2", "http/1.1");
    /// nil ignores the client's ALPN extension.
    package var alpn: [String]?
    /// When no offered protocol is in `alpn`: true sends the no_application_protocol alert
    /// (RFC 7301), false goes on without ALPN.
    package var alpnMismatchIsFatal: Bool
    /// How to answer HTTP requests after the handshake (over HTTP/2 when ALPN chose h2).
    package var http: HTTPBehavior
    /// When ALPN chose h2: how the server's HTTP/2 goes wrong; nil answers correctly.
    package var http2Fault: HTTP2Fault?
    /// "127.0.0.1" or "::1".
    package var bindAddress: String
    /// Send a CertificateRequest (the handshake goes on without a client certificate).
    package var requestClientCertificate = false
    /// Answer no handshake until this many connections have arrived, or its deadline has passed
    /// (`TestTLSServer.holdRelease` tells which); nil answers each at once.
    package var hold: HandshakeHold?

    package init(identity: TestIdentity,
                minVersion: TLSVersion = .tls10,
                maxVersion: TLSVersion = .tls13,
                cipherList: String? = nil,
                tls13Suites: String? = nil,
                groups: String? = nil,
                signatureAlgorithms: String? = nil,
                sendChain: Bool = true,
                ocspResponseDER: [UInt8]? = nil,
                sctListExtension: [UInt8]? = nil,
                alpn: [String]? = nil,
                alpnMismatchIsFatal: Bool = false,
                http: HTTPBehavior = .ok,
                http2Fault: HTTP2Fault? = nil,
                bindAddress: String = "127.0.0.1") {
        self.identity = identity
        self.minVersion = minVersion
        self.maxVersion = maxVersion
        self.cipherList = cipherList
        self.tls13Suites = tls13Suites
        self.groups = groups
        self.signatureAlgorithms = signatureAlgorithms
        self.sendChain = sendChain
        self.ocspResponseDER = ocspResponseDER
        self.sctListExtension = sctListExtension
        self.alpn = alpn
        self.alpnMismatchIsFatal = alpnMismatchIsFatal
        self.http = http
        self.http2Fault = http2Fault
        self.bindAddress = bindAddress
    }
}

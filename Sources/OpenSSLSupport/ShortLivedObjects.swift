internal import COpenSSL
internal import CATSProbeShims

// Owners of the objects a single reading or building makes and frees (a PKCS#7 message, an OCSP
// response and its parts): noncopyable, so each lives in one scope and is freed when it ends,
// whatever path leaves it. None lends its pointer outside OpenSSLSupport.

/// Owns one PKCS7 (a certs-only SignedData message).
package struct PKCS7Message: ~Copyable {
    private let pointer: UnsafeMutablePointer<PKCS7>

    private init(takingOwnership pointer: UnsafeMutablePointer<PKCS7>) { self.pointer = pointer }

    /// The message `der` encodes; nil when it is not one.
    package init?(der: UnsafeBufferPointer<UInt8>) {
        var cursor: UnsafePointer<UInt8>? = der.baseAddress
        guard let message = d2i_PKCS7(nil, &cursor, der.count) else { return nil }
        self.init(takingOwnership: message)
    }

    /// A certs-only message (SignedData without signers) holding `certificates`, the form
    /// caIssuers URLs may serve (.p7c, RFC 5280 4.2.2.1).
    package static func certificatesOnly(_ certificates: [X509Certificate]) throws(OpenSSLError) -> PKCS7Message {
        let message = PKCS7Message(takingOwnership: try checkNotNull(.allocation, "allocating a PKCS#7") { PKCS7_new() })
        try check(.configuration, "making it SignedData") { Int32(PKCS7_set_type(message.pointer, NID_pkcs7_signed)) }
        try check(.configuration, "adding empty content") { Int32(PKCS7_content_new(message.pointer, NID_pkcs7_data)) }
        for certificate in certificates {
            try check(.configuration, "adding a certificate") { PKCS7_add_certificate(message.pointer, certificate.pointer) }
        }
        return message
    }

    deinit { PKCS7_free(pointer) }

    /// A reference to each of the first `limit` certificates of a SignedData message; nil when
    /// it carries no certificate list.
    package func certificates(limit: Int) -> [X509Certificate]? {
        CATSProbeShims_PKCS7_signed_certificates(pointer).map { X509Certificate.retaining(stack: $0, limit: limit) }
    }

    package var der: [UInt8] {
        get throws(OpenSSLError) { try encoded("encoding the PKCS#7") { i2d_PKCS7(pointer, $0) } }
    }
}

/// Owns one OCSP_RESPONSE.
package struct OCSPResponse: ~Copyable {
    let pointer: OpaquePointer

    init(takingOwnership pointer: OpaquePointer) { self.pointer = pointer }

    /// The response `der` encodes; nil when it is not one.
    package init?(der: UnsafeBufferPointer<UInt8>) {
        var cursor: UnsafePointer<UInt8>? = der.baseAddress
        guard let response = d2i_OCSP_RESPONSE(nil, &cursor, der.count) else { return nil }
        self.init(takingOwnership: response)
    }

    deinit { OCSP_RESPONSE_free(pointer) }

    /// The responseStatus (OCSP_RESPONSE_STATUS_SUCCESSFUL, ...).
    package var status: Int32 { OCSP_response_status(pointer) }

    /// Its BasicOCSPResponse, a copy owned by the caller; nil when it has none.
    package func basic() -> OCSPBasicResponse? { OCSP_response_get1_basic(pointer).map(OCSPBasicResponse.init(takingOwnership:)) }
}

/// Owns one OCSP_BASICRESP.
package struct OCSPBasicResponse: ~Copyable {
    let pointer: OpaquePointer

    init(takingOwnership pointer: OpaquePointer) { self.pointer = pointer }

    /// An empty basic response (OCSP_BASICRESP_new), to build.
    package init() throws(OpenSSLError) {
        self.init(takingOwnership: try checkNotNull(.allocation, "allocating an OCSP basic response") { OCSP_BASICRESP_new() })
    }

    deinit { OCSP_BASICRESP_free(pointer) }
}

/// Owns one OCSP_CERTID (the issuer's name and key hashes and a serial number).
package struct OCSPCertificateID: ~Copyable {
    let pointer: OpaquePointer

    /// The ID of `subject` issued by `issuer` (SHA-1, as OCSP_cert_to_id makes it); nil when it
    /// cannot be made.
    package init?(subject: X509Certificate, issuer: X509Certificate) {
        guard let id = OCSP_cert_to_id(nil, subject.pointer, issuer.pointer) else { return nil }
        pointer = id
    }

    deinit { OCSP_CERTID_free(pointer) }
}

internal import COpenSSL
internal import OpenSSLSupport
import TextSupport
import TLSFacts

/// Turns a failed handshake (what the socket saw, what OpenSSL said) into a typed failure.
enum FailureClassifier {
    /// OpenSSL's reasons 1000-1255 are "the peer sent alert (reason - 1000)".
    static let alertReasonBase: Int32 = 1000

    static let protocolReasons: Set<Int32> = [
        SSL_R_UNSUPPORTED_PROTOCOL, SSL_R_WRONG_SSL_VERSION, SSL_R_VERSION_TOO_LOW, SSL_R_VERSION_TOO_HIGH,
        SSL_R_NO_PROTOCOLS_AVAILABLE, SSL_R_UNSUPPORTED_SSL_VERSION,
    ]
    static let notTLSReasons: Set<Int32> = [
        SSL_R_WRONG_VERSION_NUMBER, SSL_R_PACKET_LENGTH_TOO_LONG, SSL_R_HTTP_REQUEST, SSL_R_HTTPS_PROXY_REQUEST,
        SSL_R_RECORD_LENGTH_MISMATCH,
    ]
    static let cipherReasons: Set<Int32> = [SSL_R_NO_CIPHERS_AVAILABLE, SSL_R_NO_SHARED_CIPHER]
    /// The server answered, and our side refused its choice.
    static let clientRejectReasons: Set<Int32> = [
        SSL_R_WRONG_CIPHER_RETURNED, SSL_R_WRONG_CURVE, SSL_R_BAD_ECC_CERT, SSL_R_DH_KEY_TOO_SMALL,
        SSL_R_UNSAFE_LEGACY_RENEGOTIATION_DISABLED, SSL_R_WRONG_SIGNATURE_TYPE, SSL_R_BAD_SIGNATURE,
        SSL_R_UNKNOWN_CIPHER_RETURNED, SSL_R_MISSING_RSA_CERTIFICATE, SSL_R_WRONG_CERTIFICATE_TYPE,
        SSL_R_CA_KEY_TOO_SMALL, SSL_R_CA_MD_TOO_WEAK, SSL_R_EE_KEY_TOO_SMALL, SSL_R_BAD_KEY_SHARE,
        SSL_R_NO_SUITABLE_KEY_SHARE, SSL_R_WRONG_SIGNATURE_LENGTH, SSL_R_NO_SUITABLE_SIGNATURE_ALGORITHM,
    ]

    /// The server spoke TLS and then broke it (RFC 8446 limits, OpenSSL's bounds on what it
    /// accepts): a verdict about the server, not an unreachable host.
    static let violationReasons: Set<Int32> = [
        SSL_R_EXCESSIVE_MESSAGE_SIZE, SSL_R_TOO_MANY_WARN_ALERTS, SSL_R_UNEXPECTED_MESSAGE, SSL_R_LENGTH_MISMATCH,
        SSL_R_BAD_LENGTH, SSL_R_LENGTH_TOO_SHORT, SSL_R_CERT_LENGTH_MISMATCH, SSL_R_UNEXPECTED_RECORD,
        SSL_R_BAD_HANDSHAKE_STATE, SSL_R_BAD_PACKET, SSL_R_RECORD_TOO_SMALL, SSL_R_BAD_EXTENSION,
        SSL_R_NO_RENEGOTIATION, SSL_R_TOO_MANY_KEY_UPDATES, SSL_R_DATA_LENGTH_TOO_LONG,
    ]

    static func classify(session: TLSSession, code: Int32, errors: [OpenSSLErrorEntry], elapsed: Double) -> ProbeFailure {
        let detail = describe(session: session, errors: errors)
        func failure(_ kind: ProbeFailure.Kind, _ alert: TLSAlert? = nil) -> ProbeFailure {
            ProbeFailure(kind: kind, alert: alert, detail: detail, elapsedMilliseconds: elapsed)
        }
        if session.timedOut { return failure(.handshakeTimeout) }
        if session.firstBytesAreNotTLS { return failure(.notTLS) }

        let sslReasons = errors.filter(\.isSSL).map(\.reason)
        if let reason = sslReasons.first(where: { $0 >= alertReasonBase && $0 < alertReasonBase + 256 }) {
            let alert = TLSAlert(code: UInt8(reason - alertReasonBase))
            switch alert.code {
            case TLSAlert.protocolVersion.code: return failure(.noSharedProtocol, alert)
            case TLSAlert.handshakeFailure.code, TLSAlert.insufficientSecurity.code: return failure(.noSharedCipher, alert)
            default: return failure(.tlsAlert, alert)
            }
        }
        if sslReasons.contains(where: notTLSReasons.contains) { return failure(.notTLS) }
        if sslReasons.contains(where: protocolReasons.contains) { return failure(.noSharedProtocol) }
        if sslReasons.contains(where: cipherReasons.contains) { return failure(.noSharedCipher) }
        if sslReasons.contains(where: clientRejectReasons.contains) { return failure(.clientRejected) }
        if sslReasons.contains(where: violationReasons.contains) { return failure(.protocolViolation) }
        if session.peerReset { return failure(.resetDuringHandshake) }
        if session.peerClosed || sslReasons.contains(SSL_R_UNEXPECTED_EOF_WHILE_READING) {
            return failure(.closedDuringHandshake)
        }
        return failure(.other)
    }

    static func describe(session: TLSSession, errors: [OpenSSLErrorEntry]) -> String {
        var parts: [String] = []
        if session.timedOut { parts.append("no answer before the deadline") }
        if session.firstBytesAreNotTLS {
            let text = String(decoding: session.firstBytes, as: UTF8.self)
            parts.append("peer's first bytes are not TLS: \"\(UntrustedText.escape(text, limit: 16))\"")
        }
        if session.peerReset { parts.append("connection reset by peer") }
        if session.peerClosed { parts.append("connection closed by peer") }
        if let error = session.socketError { parts.append(String(cString: strerror(error))) }
        if !errors.isEmpty { parts.append(OpenSSLErrors.describe(errors)) }
        return parts.joined(separator: "; ")
    }
}

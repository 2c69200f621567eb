/// A handshake that did not complete, typed by what went wrong.
public struct ProbeFailure: Error, Hashable, Sendable, Codable, CustomStringConvertible {
    public enum Kind: String, Hashable, Sendable, Codable {
        /// NXDOMAIN, SERVFAIL, an unusable answer, or no A/AAAA record: the detail says which.
        case nameNotResolved
        /// No answer before the connection's deadline ("name not resolved within N s"): the name
        /// may well exist; its DNS servers are slow or silent.
        case nameResolutionTimeout
        case connectionRefused
        case networkUnreachable
        case connectTimeout
        case handshakeTimeout
        /// The peer answered with something that is not a TLS record (an HTTP server, say).
        case notTLS
        /// The server sent a fatal alert other than the two below.
        case tlsAlert
        /// protocol_version alert, or the server chose a version outside the offer.
        case noSharedProtocol
        /// handshake_failure / insufficient_security alert in answer to the ClientHello.
        case noSharedCipher
        case closedDuringHandshake
        case resetDuringHandshake
        /// The client refused the server's choice (e.g. a suite or group it did not offer).
        case clientRejected
        /// The probe was stopped before it ended (its audit target's deadline passed, or the run
        /// was interrupted): not the server's doing.
        case cancelled
        /// The server spoke TLS but broke it: a certificate list past the client's bound, a flood
        /// of warning alerts, a malformed message. It answered, and it fails.
        case protocolViolation
        /// This machine ran out of something (descriptors, memory, threads): not the server's
        /// fault, and no verdict about it may be drawn.
        case localResources
        case other
    }

    public var kind: Kind
    /// The server's alert, when one arrived.
    public var alert: TLSAlert?
    /// One line of detail (OpenSSL's reason, the errno text).
    public var detail: String
    /// Milliseconds from start until the failure.
    public var elapsedMilliseconds: Double

    public init(kind: Kind, alert: TLSAlert? = nil, detail: String, elapsedMilliseconds: Double = 0) {
        self.kind = kind
        self.alert = alert
        self.detail = detail
        self.elapsedMilliseconds = elapsedMilliseconds
    }

    /// True when no TCP connection to a TLS peer was had: the host is unreachable as far as TLS goes.
    public var isUnreachable: Bool {
        [.nameNotResolved, .nameResolutionTimeout, .connectionRefused, .networkUnreachable, .connectTimeout, .notTLS].contains(kind)
    }

    public var description: String {
        var text = kind.rawValue
        if let alert { text += " (alert \(alert.name), \(alert.code))" }
        if !detail.isEmpty { text += ": \(detail)" }
        return text
    }
}

/// A TLS alert description (RFC 8446 section 6).
public struct TLSAlert: Hashable, Sendable, Codable, CustomStringConvertible {
    public var code: UInt8
    public init(code: UInt8) { self.code = code }
    public var name: String { TLSAlert.names[code] ?? "alert_\(code)" }
    public var description: String { "\(name) (\(code))" }

    public static let handshakeFailure = TLSAlert(code: 40)
    public static let protocolVersion = TLSAlert(code: 70)
    public static let insufficientSecurity = TLSAlert(code: 71)

    static let names: [UInt8: String] = [
        0: "close_notify", 10: "unexpected_message", 20: "bad_record_mac", 21: "decryption_failed",
        22: "record_overflow", 30: "decompression_failure", 40: "handshake_failure", 41: "no_certificate",
        42: "bad_certificate", 43: "unsupported_certificate", 44: "certificate_revoked",
        45: "certificate_expired", 46: "certificate_unknown", 47: "illegal_parameter", 48: "unknown_ca",
        49: "access_denied", 50: "decode_error", 51: "decrypt_error", 60: "export_restriction",
        70: "protocol_version", 71: "insufficient_security", 80: "internal_error",
        86: "inappropriate_fallback", 90: "user_canceled", 100: "no_renegotiation",
        109: "missing_extension", 110: "unsupported_extension", 111: "certificate_unobtainable",
        112: "unrecognized_name", 113: "bad_certificate_status_response", 114: "bad_certificate_hash_value",
        115: "unknown_psk_identity", 116: "certificate_required", 120: "no_application_protocol",
    ]
}

/// The result of one handshake.
public typealias ProbeResult = Result<Observation, ProbeFailure>

extension ProbeFailure {
    /// True when the peer answered in TLS (an alert, or a choice the client refused): the host is
    /// reachable and speaks TLS, it just would not agree.
    public var spokeTLS: Bool {
        [.tlsAlert, .noSharedProtocol, .noSharedCipher, .clientRejected, .protocolViolation].contains(kind)
    }
}

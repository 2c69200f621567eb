import Foundation

/// One signed certificate timestamp to embed or serve. The signature is a well-formed dummy:
/// good enough for parsers, never for verification.
public struct TestSCT: Sendable, Hashable {
    /// The 32-byte log ID (SHA-256 of the log's key).
    public var logID: [UInt8]
    public var timestamp: Date

    public init(logID: [UInt8], timestamp: Date) {
        self.logID = logID
        self.timestamp = timestamp
    }

    /// A deterministic 32-byte log ID made from a small number, for tests that need distinct logs.
    public static func logID(_ number: UInt8) -> [UInt8] {
        [UInt8](repeating: number, count: 32)
    }

    /// RFC 6962 SignedCertificateTimestamp: v1, log id, ms timestamp, no extensions,
    /// SHA-256/ECDSA with a 70-byte DER ECDSA-shaped dummy signature.
    var encoded: [UInt8] {
        var bytes: [UInt8] = [0]  // v1
        bytes += paddedLogID
        let milliseconds = UInt64(max(0, (timestamp.timeIntervalSince1970 * 1000).rounded(.down)))
        bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: milliseconds >> (8 * UInt64($0))) }
        bytes += [0, 0]  // no CT extensions
        bytes += [4, 3]  // sha256, ecdsa
        let signature: [UInt8] = [0x30, 0x44, 0x02, 0x20] + [UInt8](repeating: 0x11, count: 32)
            + [0x02, 0x20] + [UInt8](repeating: 0x22, count: 32)
        bytes += uint16(signature.count) + signature
        return bytes
    }

    private var paddedLogID: [UInt8] {
        Array((logID + [UInt8](repeating: 0, count: 32)).prefix(32))
    }
}

/// The TLS-encoded SignedCertificateTimestampList (RFC 6962 3.3), as sent in the
/// signed_certificate_timestamp TLS extension (`TLSServerConfiguration.sctListExtension`).
public func serializedSCTList(_ scts: [TestSCT]) -> [UInt8] {
    let body = scts.flatMap { sct in
        let one = sct.encoded
        return uint16(one.count) + one
    }
    return uint16(body.count) + body
}

func uint16(_ value: Int) -> [UInt8] {
    [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
}

/// DER length octets.
func derLength(_ length: Int) -> [UInt8] {
    if length < 0x80 { return [UInt8(length)] }
    var bytes: [UInt8] = []
    var remaining = length
    while remaining > 0 {
        bytes.insert(UInt8(truncatingIfNeeded: remaining), at: 0)
        remaining >>= 8
    }
    return [0x80 | UInt8(bytes.count)] + bytes
}

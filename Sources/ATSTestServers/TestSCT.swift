import Foundation
internal import COpenSSL
internal import OpenSSLSupport

/// A CT log made at test time: an ECDSA P-256 key whose SHA-256 is the log ID, as RFC 6962
/// defines it. SCTs from it carry real signatures that a prober given its key can verify.
package final class TestCTLog: @unchecked Sendable, Hashable {
    package let name: String
    package let operatorName: String
    /// DER SubjectPublicKeyInfo.
    package let keyDER: [UInt8]
    package let logID: [UInt8]
    private let key: EVPKey

    package init(name: String, operator operatorName: String) throws {
        self.name = name
        self.operatorName = operatorName
        key = try TestKey.ec(curve: .p256).generate()
        keyDER = try key.subjectPublicKeyInfoDER
        logID = try Digest.sha256(keyDER)
    }

    package var logIDBase64: String { Data(logID).base64EncodedString() }

    /// An ECDSA signature with SHA-256 over `message` (DER), as the log would make.
    func sign(_ message: [UInt8]) throws -> [UInt8] {
        try key.signSHA256(message)
    }

    /// A log list in Apple's JSON schema (for --ct-log-list) naming these logs, each `state`
    /// ("usable", ...) since `since`, with their keys.
    package static func logListJSON(_ logs: [TestCTLog], state: String = "usable", since: Date) -> String {
        let day = ISO8601DateFormatter().string(from: since)
        let operators = Dictionary(grouping: logs, by: \.operatorName).sorted { $0.key < $1.key }.map { name, logs in
            let entries = logs.map { log in
                #"{"description": "\#(log.name)", "log_id": "\#(log.logIDBase64)", "key": "\#(Data(log.keyDER).base64EncodedString())", "state": {"\#(state)": {"timestamp": "\#(day)"}}}"#
            }
            return #"{"name": "\#(name)", "logs": [\#(entries.joined(separator: ", "))]}"#
        }
        return #"{"version": "test", "operators": [\#(operators.joined(separator: ", "))]}"#
    }

    /// Log ID (base64) -> key, as ProbeOptions.ctLogKeys takes them.
    package static func keys(_ logs: [TestCTLog]) -> [String: [UInt8]] {
        Dictionary(logs.map { ($0.logIDBase64, $0.keyDER) }, uniquingKeysWith: { first, _ in first })
    }

    package static func == (a: TestCTLog, b: TestCTLog) -> Bool { a === b }
    package func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// One signed certificate timestamp to embed or serve. From a `TestCTLog` it is signed for
/// real (over the certificate it ends up in); from a bare log ID its signature is a
/// well-formed dummy: good enough for parsers, never for verification.
package struct TestSCT: Sendable, Hashable {
    /// The 32-byte log ID (SHA-256 of the log's key).
    package var logID: [UInt8]
    package var timestamp: Date
    /// The log that signs it; nil for a dummy signature.
    package var log: TestCTLog?

    package init(logID: [UInt8], timestamp: Date) {
        self.logID = logID
        self.timestamp = timestamp
    }

    package init(log: TestCTLog, timestamp: Date) {
        self.logID = log.logID
        self.timestamp = timestamp
        self.log = log
    }

    /// A deterministic 32-byte log ID made from a small number, for tests that need distinct logs.
    package static func logID(_ number: UInt8) -> [UInt8] {
        [UInt8](repeating: number, count: 32)
    }

    /// RFC 6962 SignedCertificateTimestamp: v1, log id, ms timestamp, no extensions,
    /// SHA-256/ECDSA. `entry` is the signed entry (type and body, see `SignedEntry`); with a log
    /// and an entry the signature is real, otherwise a 70-byte DER ECDSA-shaped dummy.
    func encoded(signing entry: [UInt8]? = nil) throws -> [UInt8] {
        var bytes: [UInt8] = [0]  // v1
        bytes += paddedLogID
        let milliseconds = UInt64(max(0, (timestamp.timeIntervalSince1970 * 1000).rounded(.down)))
        let time = (0..<8).reversed().map { UInt8(truncatingIfNeeded: milliseconds >> (8 * UInt64($0))) }
        bytes += time
        bytes += [0, 0]  // no CT extensions
        bytes += [4, 3]  // sha256, ecdsa
        let signature: [UInt8]
        if let log, let entry {
            signature = try log.sign([0, 0] + time + entry + [0, 0])  // v1, certificate_timestamp, ..., no extensions
        } else {
            signature = [0x30, 0x44, 0x02, 0x20] + [UInt8](repeating: 0x11, count: 32) + [0x02, 0x20] + [UInt8](repeating: 0x22, count: 32)
        }
        bytes += uint16(signature.count) + signature
        return bytes
    }

    private var paddedLogID: [UInt8] {
        Array((logID + [UInt8](repeating: 0, count: 32)).prefix(32))
    }
}

/// What an SCT's signature covers (RFC 6962 3.2): the entry type and the entry.
enum SignedEntry {
    /// x509_entry: the leaf as served (TLS extension, OCSP staple).
    static func certificate(_ der: [UInt8]) -> [UInt8] { [0, 0] + uint24(der.count) + der }
    /// precert_entry: the issuer's key hash and the leaf's TBSCertificate without the SCT list.
    static func precertificate(issuerKeyHash: [UInt8], tbs: [UInt8]) -> [UInt8] { [0, 1] + issuerKeyHash + uint24(tbs.count) + tbs }
}

/// The TLS-encoded SignedCertificateTimestampList (RFC 6962 3.3), as sent in the
/// signed_certificate_timestamp TLS extension (`TLSServerConfiguration.sctListExtension`) or an
/// OCSP response. SCTs from a `TestCTLog` are signed over `certificate` (the leaf's DER) when
/// it is given; otherwise every signature is a dummy.
package func serializedSCTList(_ scts: [TestSCT], certificate: [UInt8]? = nil) -> [UInt8] {
    serializedSCTList(scts, entry: certificate.map(SignedEntry.certificate))
}

func serializedSCTList(_ scts: [TestSCT], entry: [UInt8]?) -> [UInt8] {
    let body = scts.flatMap { sct in
        // Signing with a freshly made P-256 key does not fail; a dummy stands in if it ever does.
        let one = (try? sct.encoded(signing: entry)) ?? ((try? sct.encoded()) ?? [])
        return uint16(one.count) + one
    }
    return uint16(body.count) + body
}

func uint24(_ value: Int) -> [UInt8] {
    [UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
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

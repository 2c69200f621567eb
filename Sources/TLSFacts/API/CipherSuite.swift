/// A TLS cipher suite, keyed by its IANA code point (as swift-nio-ssl's `NIOTLSCipher`).
/// Suite lists are data: the ATS groups are sets of these values.
public struct CipherSuite: RawRepresentable, Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// The IANA name ("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"), or the code point for suites
    /// outside the table.
    public var ianaName: String { CipherSuite.names[rawValue] ?? String(format: rawValue) }
    public var description: String { ianaName }
    /// "0xC02F"
    public var codePoint: String { String(format: rawValue) }

    public init?(ianaName: String) {
        guard let entry = CipherSuite.names.first(where: { $0.value == ianaName }) else { return nil }
        self.init(rawValue: entry.key)
    }

    /// True for TLS 1.3 suites (which carry no key exchange or authentication in their name).
    public var isTLS13: Bool { rawValue >= 0x1301 && rawValue <= 0x1305 }
    /// Forward secret key exchange: every TLS 1.3 suite, and (EC)DHE suites before it.
    public var isForwardSecret: Bool { isTLS13 || ianaName.contains("_DHE_") || ianaName.contains("_ECDHE_") }

    public static func < (lhs: CipherSuite, rhs: CipherSuite) -> Bool { lhs.rawValue < rhs.rawValue }

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        if let suite = CipherSuite(ianaName: text) { self = suite; return }
        if text.hasPrefix("0x"), let value = UInt16(text.dropFirst(2), radix: 16) { self.init(rawValue: value); return }
        throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown cipher suite \(text)"))
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(ianaName)
    }

    // Names from the IANA TLS Cipher Suites registry, for the suites a client or server here can speak.
    static let names: [UInt16: String] = [
        0x0004: "TLS_RSA_WITH_RC4_128_MD5",
        0x0005: "TLS_RSA_WITH_RC4_128_SHA",
        0x000A: "TLS_RSA_WITH_3DES_EDE_CBC_SHA",
        0x0016: "TLS_DHE_RSA_WITH_3DES_EDE_CBC_SHA",
        0x002F: "TLS_RSA_WITH_AES_128_CBC_SHA",
        0x0033: "TLS_DHE_RSA_WITH_AES_128_CBC_SHA",
        0x0035: "TLS_RSA_WITH_AES_256_CBC_SHA",
        0x0039: "TLS_DHE_RSA_WITH_AES_256_CBC_SHA",
        0x003C: "TLS_RSA_WITH_AES_128_CBC_SHA256",
        0x003D: "TLS_RSA_WITH_AES_256_CBC_SHA256",
        0x0041: "TLS_RSA_WITH_CAMELLIA_128_CBC_SHA",
        0x0045: "TLS_DHE_RSA_WITH_CAMELLIA_128_CBC_SHA",
        0x0067: "TLS_DHE_RSA_WITH_AES_128_CBC_SHA256",
        0x006B: "TLS_DHE_RSA_WITH_AES_256_CBC_SHA256",
        0x0084: "TLS_RSA_WITH_CAMELLIA_256_CBC_SHA",
        0x0088: "TLS_DHE_RSA_WITH_CAMELLIA_256_CBC_SHA",
        0x009C: "TLS_RSA_WITH_AES_128_GCM_SHA256",
        0x009D: "TLS_RSA_WITH_AES_256_GCM_SHA384",
        0x009E: "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256",
        0x009F: "TLS_DHE_RSA_WITH_AES_256_GCM_SHA384",
        0x1301: "TLS_AES_128_GCM_SHA256",
        0x1302: "TLS_AES_256_GCM_SHA384",
        0x1303: "TLS_CHACHA20_POLY1305_SHA256",
        0x1304: "TLS_AES_128_CCM_SHA256",
        0x1305: "TLS_AES_128_CCM_8_SHA256",
        0xC007: "TLS_ECDHE_ECDSA_WITH_RC4_128_SHA",
        0xC008: "TLS_ECDHE_ECDSA_WITH_3DES_EDE_CBC_SHA",
        0xC009: "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA",
        0xC00A: "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
        0xC011: "TLS_ECDHE_RSA_WITH_RC4_128_SHA",
        0xC012: "TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA",
        0xC013: "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
        0xC014: "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
        0xC023: "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256",
        0xC024: "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384",
        0xC027: "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256",
        0xC028: "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384",
        0xC02B: "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
        0xC02C: "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
        0xC02F: "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
        0xC030: "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
        0xC09C: "TLS_RSA_WITH_AES_128_CCM",
        0xC09D: "TLS_RSA_WITH_AES_256_CCM",
        0xCCA8: "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
        0xCCA9: "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
        0xCCAA: "TLS_DHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
    ]
}

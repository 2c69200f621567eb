/// A TLS supported_groups entry (RFC 8446 4.2.7), keyed by its IANA code point.
public struct NamedGroup: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let secp256r1 = NamedGroup(rawValue: 0x0017)
    public static let secp384r1 = NamedGroup(rawValue: 0x0018)
    public static let secp521r1 = NamedGroup(rawValue: 0x0019)
    public static let x25519 = NamedGroup(rawValue: 0x001D)
    public static let x448 = NamedGroup(rawValue: 0x001E)
    public static let ffdhe2048 = NamedGroup(rawValue: 0x0100)
    public static let ffdhe3072 = NamedGroup(rawValue: 0x0101)
    public static let ffdhe4096 = NamedGroup(rawValue: 0x0102)
    public static let ffdhe6144 = NamedGroup(rawValue: 0x0103)
    public static let ffdhe8192 = NamedGroup(rawValue: 0x0104)
    /// The post-quantum hybrid iOS/macOS 26 offers first. OpenSSL 3.0 cannot offer it.
    public static let x25519MLKEM768 = NamedGroup(rawValue: 0x11EC)

    static let names: [UInt16: String] = [
        0x0017: "secp256r1", 0x0018: "secp384r1", 0x0019: "secp521r1", 0x001D: "x25519", 0x001E: "x448",
        0x0100: "ffdhe2048", 0x0101: "ffdhe3072", 0x0102: "ffdhe4096", 0x0103: "ffdhe6144", 0x0104: "ffdhe8192",
        0x11EC: "X25519MLKEM768",
    ]

    /// The IANA name ("x25519", "secp256r1"), or the code point.
    public var name: String { NamedGroup.names[rawValue] ?? String(format: rawValue) }
    public var description: String { name }

    /// Accepts the IANA name and OpenSSL's other spellings ("prime256v1", "P-256", "X25519").
    public init?(name: String) {
        let aliases = ["prime256v1": "secp256r1", "p-256": "secp256r1", "p-384": "secp384r1", "p-521": "secp521r1"]
        let wanted = aliases[name.lowercased()] ?? name.lowercased()
        guard let entry = NamedGroup.names.first(where: { $0.value.lowercased() == wanted }) else { return nil }
        self.init(rawValue: entry.key)
    }

    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        if let group = NamedGroup(name: text) { self = group; return }
        if text.hasPrefix("0x"), let value = UInt16(text.dropFirst(2), radix: 16) { self.init(rawValue: value); return }
        throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown group \(text)"))
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
}

/// A TLS signature_algorithms entry (RFC 8446 4.2.3), keyed by its IANA code point.
public struct SignatureScheme: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let rsaPKCS1SHA1 = SignatureScheme(rawValue: 0x0201)
    public static let ecdsaSHA1 = SignatureScheme(rawValue: 0x0203)
    public static let rsaPKCS1SHA224 = SignatureScheme(rawValue: 0x0301)
    public static let ecdsaSHA224 = SignatureScheme(rawValue: 0x0303)
    public static let rsaPKCS1SHA256 = SignatureScheme(rawValue: 0x0401)
    public static let ecdsaSecp256r1SHA256 = SignatureScheme(rawValue: 0x0403)
    public static let rsaPKCS1SHA384 = SignatureScheme(rawValue: 0x0501)
    public static let ecdsaSecp384r1SHA384 = SignatureScheme(rawValue: 0x0503)
    public static let rsaPKCS1SHA512 = SignatureScheme(rawValue: 0x0601)
    public static let ecdsaSecp521r1SHA512 = SignatureScheme(rawValue: 0x0603)
    public static let rsaPSSRSAESHA256 = SignatureScheme(rawValue: 0x0804)
    public static let rsaPSSRSAESHA384 = SignatureScheme(rawValue: 0x0805)
    public static let rsaPSSRSAESHA512 = SignatureScheme(rawValue: 0x0806)
    public static let ed25519 = SignatureScheme(rawValue: 0x0807)
    public static let ed448 = SignatureScheme(rawValue: 0x0808)
    public static let rsaPSSPSSSHA256 = SignatureScheme(rawValue: 0x0809)
    public static let rsaPSSPSSSHA384 = SignatureScheme(rawValue: 0x080A)
    public static let rsaPSSPSSSHA512 = SignatureScheme(rawValue: 0x080B)

    static let names: [UInt16: String] = [
        0x0201: "rsa_pkcs1_sha1", 0x0203: "ecdsa_sha1", 0x0301: "rsa_pkcs1_sha224", 0x0303: "ecdsa_sha224",
        0x0401: "rsa_pkcs1_sha256", 0x0403: "ecdsa_secp256r1_sha256", 0x0501: "rsa_pkcs1_sha384",
        0x0503: "ecdsa_secp384r1_sha384", 0x0601: "rsa_pkcs1_sha512", 0x0603: "ecdsa_secp521r1_sha512",
        0x0804: "rsa_pss_rsae_sha256", 0x0805: "rsa_pss_rsae_sha384", 0x0806: "rsa_pss_rsae_sha512",
        0x0807: "ed25519", 0x0808: "ed448", 0x0809: "rsa_pss_pss_sha256", 0x080A: "rsa_pss_pss_sha384",
        0x080B: "rsa_pss_pss_sha512",
    ]

    /// The IANA name ("ecdsa_secp256r1_sha256"), or the code point.
    public var name: String { SignatureScheme.names[rawValue] ?? String(format: rawValue) }
    public var description: String { name }

    public init?(name: String) {
        guard let entry = SignatureScheme.names.first(where: { $0.value == name }) else { return nil }
        self.init(rawValue: entry.key)
    }

    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        if let scheme = SignatureScheme(name: text) { self = scheme; return }
        if text.hasPrefix("0x"), let value = UInt16(text.dropFirst(2), radix: 16) { self.init(rawValue: value); return }
        throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown signature scheme \(text)"))
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
}

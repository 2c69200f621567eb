/// What a client puts in its ClientHello: a protocol range, cipher suites in preference order,
/// the key exchange groups, the signature algorithms and the ALPN list. Two tests with equal
/// offers need only one handshake.
public struct ClientOffer: Hashable, Sendable, Codable, CustomStringConvertible {
    public var minVersion: TLSVersion
    public var maxVersion: TLSVersion
    /// Suites in preference order. TLS 1.3 suites are offered only when the range reaches 1.3.
    public var suites: [CipherSuite]
    /// supported_groups, in preference order (the first is the TLS 1.3 key share).
    public var groups: [NamedGroup]
    /// signature_algorithms, in preference order.
    public var signatureSchemes: [SignatureScheme]
    /// Application protocols ("h2", "http/1.1"), in preference order.
    public var alpn: [String]

    /// Without groups, schemes or ALPN given, the offer is the observing one: every group and
    /// signature algorithm OpenSSL can name, so a server that only Apple would refuse still
    /// shows what it chose. Apple's own offers come from `RuleSet` through `EffectivePolicy`.
    public init(minVersion: TLSVersion, maxVersion: TLSVersion, suites: [CipherSuite],
                groups: [NamedGroup] = ClientOffer.observingGroups,
                signatureSchemes: [SignatureScheme] = ClientOffer.observingSignatureSchemes,
                alpn: [String] = ["http/1.1"]) {
        self.minVersion = minVersion
        self.maxVersion = maxVersion
        self.suites = suites
        self.groups = groups
        self.signatureSchemes = signatureSchemes
        self.alpn = alpn
    }

    public var description: String {
        "\(minVersion.plistName)-\(maxVersion.plistName), \(suites.count) suites"
    }

    /// Every group OpenSSL 3.0 can offer: elliptic curves first, finite-field last.
    public static let observingGroups: [NamedGroup] = [
        .x25519, .secp256r1, .secp384r1, .secp521r1, .x448, .ffdhe2048, .ffdhe3072, .ffdhe4096, .ffdhe6144, .ffdhe8192,
    ]
    /// Every signature algorithm OpenSSL 3.0 can offer; SHA-1 and SHA-224 last, so servers that
    /// can only sign with them are still observed.
    public static let observingSignatureSchemes: [SignatureScheme] = [
        .ecdsaSecp256r1SHA256, .ecdsaSecp384r1SHA384, .ecdsaSecp521r1SHA512, .ed25519, .ed448,
        .rsaPSSRSAESHA256, .rsaPSSRSAESHA384, .rsaPSSRSAESHA512, .rsaPSSPSSSHA256, .rsaPSSPSSSHA384, .rsaPSSPSSSHA512,
        .rsaPKCS1SHA256, .rsaPKCS1SHA384, .rsaPKCS1SHA512, .ecdsaSHA224, .rsaPKCS1SHA224, .ecdsaSHA1, .rsaPKCS1SHA1,
    ]
}

/// One handshake to make: where, under which name, with which offer, and what to ask after it.
public struct ProbeRequest: Hashable, Sendable {
    public var target: Target
    /// The name sent in SNI and checked against the certificate; nil for IP literals (no SNI).
    public var serverName: String?
    public var offer: ClientOffer
    /// Send `GET path HTTP/1.1` after the handshake and record the response head.
    public var httpRequest: Bool
    /// Deadline for connect + handshake + request, in seconds.
    public var timeout: Double
    /// Ask for a stapled OCSP response and for SCTs in the TLS extension.
    public var requestStatus: Bool

    public init(target: Target, serverName: String? = nil, offer: ClientOffer, httpRequest: Bool = false,
                timeout: Double = 10, requestStatus: Bool = true) {
        self.target = target
        self.serverName = serverName ?? (target.hostIsIPAddress ? nil : target.host)
        self.offer = offer
        self.httpRequest = httpRequest
        self.timeout = timeout
        self.requestStatus = requestStatus
    }
}

extension ClientOffer {
    /// The offer with suites that cannot be used in its protocol range removed: TLS 1.3 suites
    /// when the range stops below 1.3, older suites when it starts at 1.3. Two offers with the same
    /// canonical form put the same choices to a server, so one handshake answers both.
    public var canonical: ClientOffer {
        var copy = self
        if maxVersion < .tls13 { copy.suites.removeAll { $0.isTLS13 } }
        if minVersion >= .tls13 { copy.suites.removeAll { !$0.isTLS13 } }
        return copy
    }
}

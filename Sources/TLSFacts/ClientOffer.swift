/// What a client puts in its ClientHello: a protocol range and cipher suites in preference order.
/// Two tests with equal offers need only one handshake.
public struct ClientOffer: Hashable, Sendable, Codable, CustomStringConvertible {
    public var minVersion: TLSVersion
    public var maxVersion: TLSVersion
    /// Suites in preference order. TLS 1.3 suites are offered only when the range reaches 1.3.
    public var suites: [CipherSuite]

    public init(minVersion: TLSVersion, maxVersion: TLSVersion, suites: [CipherSuite]) {
        self.minVersion = minVersion
        self.maxVersion = maxVersion
        self.suites = suites
    }

    public var description: String {
        "\(minVersion.plistName)-\(maxVersion.plistName), \(suites.count) suites"
    }
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

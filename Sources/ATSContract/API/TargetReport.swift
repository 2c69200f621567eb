import TLSFacts

/// How a target is named in JSON.
public struct TargetReport: Codable, Sendable, Hashable {
    public let url: String
    public let host: String
    public let port: Int
    public let connectAddress: String?
    public let connectPort: Int?

    private enum CodingKeys: String, CodingKey { case url, host, port, connectAddress, connectPort }

    /// Read with its ports in 1-65535, as `Target(parsing:)` takes them.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        url = try c.decode(String.self, forKey: .url)
        host = try c.decode(String.self, forKey: .host)
        port = try CheckedNumber.integer(c, .port, in: CheckedNumber.portRange, "1 to 65535")
        connectAddress = try c.decodeIfPresent(String.self, forKey: .connectAddress)
        let hasConnectPort = try c.contains(.connectPort) && !c.decodeNil(forKey: .connectPort)
        connectPort = hasConnectPort ? try CheckedNumber.integer(c, .connectPort, in: CheckedNumber.portRange, "1 to 65535") : nil
    }

    public init(_ target: Target) {
        url = target.url
        host = target.host
        port = target.port
        connectAddress = target.connectAddress
        connectPort = target.connectPort
    }
}

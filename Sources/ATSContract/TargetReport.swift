import TLSFacts

/// How a target is named in JSON.
public struct TargetReport: Codable, Sendable, Hashable {
    public let url: String
    public let host: String
    public let port: Int
    public let connectAddress: String?
    public let connectPort: Int?

    public init(_ target: Target) {
        url = target.url
        host = target.host
        port = target.port
        connectAddress = target.connectAddress
        connectPort = target.connectPort
    }
}

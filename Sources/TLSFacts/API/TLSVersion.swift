/// A TLS protocol version, keyed by its wire value (0x0301 is TLS 1.0 ... 0x0304 is TLS 1.3).
public struct TLSVersion: RawRepresentable, Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let tls10 = TLSVersion(rawValue: 0x0301)
    public static let tls11 = TLSVersion(rawValue: 0x0302)
    public static let tls12 = TLSVersion(rawValue: 0x0303)
    public static let tls13 = TLSVersion(rawValue: 0x0304)

    /// Every version atsprobe can offer, lowest first.
    public static let all: [TLSVersion] = [.tls10, .tls11, .tls12, .tls13]

    /// Apple's Info.plist spelling: "TLSv1.2".
    public var plistName: String {
        rawValue >= 0x0301 && rawValue <= 0x0304 ? "TLSv1.\(rawValue - 0x0301)" : String(format: rawValue)
    }

    /// The spelling people read: "TLS 1.2".
    public var description: String {
        rawValue >= 0x0301 && rawValue <= 0x0304 ? "TLS 1.\(rawValue - 0x0301)" : String(format: rawValue)
    }

    /// Parses "TLSv1.2", "TLS1.2", "TLS 1.2", "1.2".
    public init?(name: String) {
        var s = name.lowercased().replacing(" ", with: "")
        for prefix in ["tlsv", "tls"] where s.hasPrefix(prefix) { s.removeFirst(prefix.count); break }
        switch s {
        case "1.0", "1": self = .tls10
        case "1.1": self = .tls11
        case "1.2": self = .tls12
        case "1.3": self = .tls13
        default: return nil
        }
    }

    public static func < (lhs: TLSVersion, rhs: TLSVersion) -> Bool { lhs.rawValue < rhs.rawValue }

    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let version = TLSVersion(name: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown TLS version \(text)"))
        }
        self = version
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(plistName)
    }
}

extension String {
    init(format value: UInt16) {
        let hex = String(value, radix: 16, uppercase: true)
        self = "0x" + String(repeating: "0", count: Swift.max(0, 4 - hex.count)) + hex
    }
}

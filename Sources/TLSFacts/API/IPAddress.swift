#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address in its textual form, parsed once for every reader: targets, ATS
/// exception keys and their lint, the test servers' listeners. The grammar is inet_pton's
/// (dotted quad with exactly four decimal parts, RFC 4291 text for IPv6, no brackets, no zone,
/// no prefix), which is also what Apple's code parses exception keys with
/// (SecProtocolConfiguration.m, inet_pton in sec_protocol_configuration_*).
public struct IPAddress: Hashable, Sendable {
    public enum Family: Sendable, Hashable {
        case v4, v6
        /// Address length in bytes.
        public var byteCount: Int { self == .v4 ? 4 : 16 }
    }

    /// Network byte order: 4 bytes for IPv4, 16 for IPv6.
    public let bytes: [UInt8]

    public var family: Family { bytes.count == 4 ? .v4 : .v6 }

    /// Parses `text` as IPv4, else as IPv6; nil when it is neither.
    public init?(_ text: String) {
        guard let parsed = IPAddress(text, family: .v4) ?? IPAddress(text, family: .v6) else { return nil }
        self = parsed
    }

    /// Parses `text` as an address of `family` only.
    public init?(_ text: String, family: Family) {
        switch family {
        case .v4:
            var address = in_addr()
            guard inet_pton(AF_INET, text, &address) == 1 else { return nil }
            bytes = withUnsafeBytes(of: &address) { Array($0) }
        case .v6:
            var address = in6_addr()
            guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
            bytes = withUnsafeBytes(of: &address) { Array($0) }
        }
    }

    /// True when `text` is an IPv4 or IPv6 address.
    public static func isAddress(_ text: String) -> Bool { IPAddress(text) != nil }
}

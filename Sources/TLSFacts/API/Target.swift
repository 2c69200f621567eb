import TextSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where to connect and what to call the server: `https://host:port/path`, `host`, `host:port`,
/// `[2001:db8::1]:8443`. Without a scheme, https and port 443.
public struct Target: Hashable, Sendable, Codable, CustomStringConvertible {
    public enum Scheme: String, Sendable, Codable { case https, http }

    public var scheme: Scheme
    /// The host as typed, lower-cased, IDN converted to punycode, no brackets for IPv6.
    public var host: String
    public var port: Int
    /// Path and query for the HTTP request ("/" when none).
    public var path: String
    /// Connect to this address and port instead of resolving `host` (curl's --connect-to).
    public var connectAddress: String?
    public var connectPort: Int?

    public init(scheme: Scheme = .https, host: String, port: Int? = nil, path: String = "/",
                connectAddress: String? = nil, connectPort: Int? = nil) {
        self.scheme = scheme
        self.host = host
        self.port = port ?? (scheme == .https ? 443 : 80)
        self.path = path
        self.connectAddress = connectAddress
        self.connectPort = connectPort
    }

    /// True when the host is an IPv4 or IPv6 literal.
    public var hostIsIPAddress: Bool { Target.isIPAddress(host) }

    /// "host:port", with brackets for IPv6.
    public var authority: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return "\(h):\(port)"
    }

    /// The URL form: "https://host[:port]/path" (port only when not the scheme's default).
    public var url: String {
        let h = host.contains(":") ? "[\(host)]" : host
        let defaultPort = scheme == .https ? 443 : 80
        return "\(scheme.rawValue)://\(h)\(port == defaultPort ? "" : ":\(port)")\(path)"
    }

    public var description: String { url }

    public static func isIPAddress(_ text: String) -> Bool { IPAddress.isAddress(text) }
}

/// Why a target string was refused. The description is one line naming the input.
public struct TargetParseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong, for code: callers compare this, never `reason`'s text.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        case empty, tooLong, controlCharacter, unsupportedScheme, userInformation, missingHost
        /// An IPv6 address unbracketed, unclosed or malformed.
        case badIPv6Address
        case badPort
        case badHostName
    }

    public let code: Code
    /// The input as typed, the password of a URL's userinfo redacted (`UntrustedText.redactingPassword`).
    public let input: String
    /// For people: what is wrong, in a few words.
    public let reason: String

    public init(_ code: Code, input: String, reason: String) {
        self.code = code
        self.input = UntrustedText.redactingPassword(input)
        self.reason = reason
    }
    public var description: String { "invalid target '\(UntrustedText.escape(input, limit: 200))': \(reason)" }
}

extension Target {
    /// Parses a target as typed by a user.
    public init(parsing input: String) throws(TargetParseError) {
        func fail(_ code: TargetParseError.Code, _ reason: String) -> TargetParseError { TargetParseError(code, input: input, reason: reason) }
        let text = input.trimmingWhitespace()
        guard !text.isEmpty else { throw fail(.empty, "empty target") }
        guard text.utf8.count <= 2048 else { throw fail(.tooLong, "longer than 2048 bytes") }
        guard !text.unicodeScalars.contains(where: URIReference.isControl) else {
            throw fail(.controlCharacter, "contains a control character")
        }

        var scheme = Scheme.https
        var rest = Substring(text)
        if let range = text.firstRange(of: "://") {
            let name = text[..<range.lowerBound].lowercased()
            guard let s = Scheme(rawValue: name) else {
                throw fail(.unsupportedScheme, name.isEmpty ? "missing scheme before ://" : "unsupported scheme '\(UntrustedText.escape(name, limit: 40))' (use https or http)")
            }
            scheme = s
            rest = text[range.upperBound...]
        } else if text.contains("/") && !text.hasPrefix("[") && text.firstIndex(of: "/")! < (text.firstIndex(of: ":") ?? text.endIndex) {
            // "host/path" without a scheme: accept, as curl does.
        }

        // Split authority from path.
        var path = "/"
        if let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) {
            var p = String(rest[slash...])
            if let hash = p.firstIndex(of: "#") { p = String(p[..<hash]) }
            if p.hasPrefix("?") { p = "/" + p }
            path = p.isEmpty ? "/" : p
            rest = rest[..<slash]
        }
        if rest.contains("@") { throw fail(.userInformation, "user information in a URL is not supported") }
        guard !rest.isEmpty else { throw fail(.missingHost, "missing host") }

        var hostPart: Substring
        var portPart: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw fail(.badIPv6Address, "unclosed '[' in IPv6 address") }
            hostPart = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw fail(.badIPv6Address, "unexpected text after ']'") }
                portPart = after.dropFirst()
            }
            guard IPAddress(String(hostPart), family: .v6) != nil else { throw fail(.badIPv6Address, "'\(UntrustedText.escape(String(hostPart), limit: 100))' is not an IPv6 address") }
        } else {
            let colons = rest.filter { $0 == ":" }.count
            if colons == 1, let colon = rest.firstIndex(of: ":") {
                hostPart = rest[..<colon]
                portPart = rest[rest.index(after: colon)...]
            } else if colons > 1 {
                guard IPAddress(String(rest), family: .v6) != nil else { throw fail(.badIPv6Address, "malformed host (IPv6 addresses need brackets with a port)") }
                hostPart = rest
            } else {
                hostPart = rest
            }
        }

        var port: Int?
        if let portPart {
            guard !portPart.isEmpty, portPart.allSatisfy(\.isASCII), portPart.allSatisfy(\.isNumber), portPart.count <= 5,
                  let value = Int(portPart), (1...65535).contains(value) else {
                throw fail(.badPort, "bad port '\(UntrustedText.escape(String(portPart), limit: 20))' (1-65535)")
            }
            port = value
        }
        guard !hostPart.isEmpty else { throw fail(.missingHost, "missing host") }
        let host: String
        if Target.isIPAddress(String(hostPart)) {
            host = String(hostPart).lowercased()
        } else {
            guard let ascii = IDNA.toASCII(String(hostPart)) else { throw fail(.badHostName, "'\(UntrustedText.escape(String(hostPart), limit: 200))' is not a valid host name") }
            host = ascii
        }
        // Non-ASCII in the path (a bidi override among it) goes out percent-encoded, as browsers
        // send it, so the URL echoed in every output is plain ASCII.
        guard let encodedPath = URIReference.requestTarget(path) else { throw fail(.controlCharacter, "contains a control character") }
        self.init(scheme: scheme, host: host, port: port, path: encodedPath)
    }
}

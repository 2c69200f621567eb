import TextSupport

/// curl's --connect-to HOST:PORT:ADDR:PORT: connect to ADDR:PORT when the target is HOST:PORT,
/// keeping the target's name for SNI, Host and the checks. An empty HOST or PORT matches any;
/// an empty ADDR or ADDR PORT keeps the target's own. IPv6 in brackets.
public struct ConnectToRule: Hashable, Sendable {
    /// Lower-cased, without brackets; nil matches any host.
    public var host: String?
    /// nil matches any port.
    public var port: Int?
    /// Without brackets; nil keeps the target's host.
    public var address: String?
    /// nil keeps the target's port.
    public var addressPort: Int?

    public init(host: String? = nil, port: Int? = nil, address: String? = nil, addressPort: Int? = nil) {
        self.host = host
        self.port = port
        self.address = address
        self.addressPort = addressPort
    }

    /// Parses HOST:PORT:ADDR:PORT; IPv6 in brackets. Ports are 1-65535.
    public init(parsing spec: String) throws(ConnectToRuleError) {
        var fields: [String] = []
        var current = "", depth = 0
        for ch in spec {
            if ch == "[" { depth += 1 } else if ch == "]" { depth -= 1 }
            if ch == ":" && depth == 0 { fields.append(current); current = "" } else { current.append(ch) }
        }
        fields.append(current)
        func strip(_ s: String) -> String { s.hasPrefix("[") && s.hasSuffix("]") ? String(s.dropFirst().dropLast()) : s }
        func port(_ s: String) throws(ConnectToRuleError) -> Int? {
            if s.isEmpty { return nil }
            guard let value = Int(s), (1...65535).contains(value) else { throw ConnectToRuleError(input: spec) }
            return value
        }
        guard fields.count == 4 else { throw ConnectToRuleError(input: spec) }
        let host = strip(fields[0]).lowercased(), address = strip(fields[2])
        self.init(host: host.isEmpty ? nil : host, port: try port(fields[1]),
                  address: address.isEmpty ? nil : address, addressPort: try port(fields[3]))
    }

    /// Whether the rule is for `target`'s host and port.
    public func matches(_ target: Target) -> Bool {
        (host ?? target.host) == target.host && (port ?? target.port) == target.port
    }
}

/// A --connect-to rule that is not HOST:PORT:ADDR:PORT. The description names the input,
/// escaped: "'x:1' is not HOST:PORT:ADDR:PORT".
public struct ConnectToRuleError: Error, Equatable, Sendable, CustomStringConvertible {
    public let input: String
    public init(input: String) { self.input = input }
    public var description: String { "'\(UntrustedText.escape(UntrustedText.redactingPassword(input), limit: 100))' is not HOST:PORT:ADDR:PORT" }
}

extension Target {
    /// The target with the first rule that matches it applied (as curl, the first match wins;
    /// one that changes neither address nor port leaves the target as it is).
    public func connecting(by rules: [ConnectToRule]) -> Target {
        guard let rule = rules.first(where: { $0.matches(self) }), rule.address != nil || rule.addressPort != nil else { return self }
        var target = self
        target.connectAddress = rule.address ?? host
        target.connectPort = rule.addressPort ?? port
        return target
    }
}

import TextSupport
import TLSFacts

/// curl's --dns-servers: ADDR[:PORT] entries, comma-separated; IPv6 bare or in brackets
/// (brackets when a port follows); port 53 when none. Names are refused: a resolver cannot need
/// a name resolved to reach it. `csv` is the list as c-ares takes it (`ares_set_servers_ports_csv`,
/// `ProbeOptions.dnsServers`).
public struct DNSServerList: Hashable, Sendable {
    /// "ADDR[:PORT],[IPv6]:PORT,...": every IPv6 address in brackets with its port (53 when none
    /// was given): c-ares refuses a bare "::1" and "[::1]" alike ("Misformatted string", issue
    /// 40, item 8); IPv4 ports as given.
    public let csv: String

    public init(parsing text: String) throws(DNSServerListError) {
        func bad(_ code: DNSServerListError.Code, _ why: String) -> DNSServerListError { DNSServerListError(code: code, input: text, reason: why) }
        func port(_ portText: Substring, in entry: Substring) throws(DNSServerListError) -> Int {
            guard let value = Int(portText), (1...65535).contains(value) else {
                throw bad(.badPort, "'\(UntrustedText.escape(String(entry), limit: 60))' has no port 1-65535 after its colon")
            }
            return value
        }
        var servers: [String] = []
        for entry in text.split(separator: ",", omittingEmptySubsequences: false) {
            let entryText = UntrustedText.escape(String(entry), limit: 60)
            guard !entry.isEmpty else { throw bad(.emptyEntry, "an entry is empty") }
            if entry.hasPrefix("[") {
                guard let close = entry.firstIndex(of: "]"), IPAddress(String(entry[entry.index(after: entry.startIndex)..<close]), family: .v6) != nil else {
                    throw bad(.badIPv6Entry, "'\(entryText)' is not [IPv6] or [IPv6]:PORT")
                }
                let rest = entry[entry.index(after: close)...]
                if rest.isEmpty { servers.append("\(entry):53"); continue }
                guard rest.hasPrefix(":") else { throw bad(.badIPv6Entry, "'\(entryText)' is not [IPv6] or [IPv6]:PORT") }
                servers.append("\(entry[...close]):\(try port(rest.dropFirst(), in: entry))")
            } else if IPAddress(String(entry), family: .v6) != nil {
                servers.append("[\(entry)]:53")
            } else if let colon = entry.lastIndex(of: ":"), IPAddress(String(entry[..<colon]), family: .v4) != nil {
                servers.append("\(entry[..<colon]):\(try port(entry[entry.index(after: colon)...], in: entry))")
            } else if IPAddress(String(entry), family: .v4) != nil {
                servers.append(String(entry))
            } else {
                throw bad(.notAnAddress, "'\(entryText)' is not an IPv4 or IPv6 address (with an optional :PORT)")
            }
        }
        csv = servers.joined(separator: ",")
    }
}

/// Why a --dns-servers list was refused. The description names the list, escaped, and the
/// entry at fault: "'1.1.1.1,': an entry is empty".
public struct DNSServerListError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong, for code: callers compare this, never `reason`'s text.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        case emptyEntry
        /// A port missing or outside 1-65535.
        case badPort
        /// A bracketed entry that is not [IPv6] or [IPv6]:PORT.
        case badIPv6Entry
        /// Not an IPv4 or IPv6 address (a name, say).
        case notAnAddress
    }

    public let code: Code
    public let input: String
    /// For people: the entry at fault and what is wrong with it.
    public let reason: String
    public var description: String { "'\(UntrustedText.escape(input, limit: 200))': \(reason)" }
}

import TLSFacts

/// The SSL server name a chain is judged for (`atsprobe cert --host`): a DNS name or an IP
/// literal ([IPv6] brackets dropped). One trailing dot is removed before matching, as Apple
/// does with the host it is given (SecPolicyServer.c SecPolicyCheckSSLHostname); names are
/// matched lowercased.
package enum ServerName {
    /// The name to match, or nil when `text` is neither a DNS name nor an IP address.
    package static func normalized(_ text: String) -> String? {
        var name = text
        if name.hasPrefix("[") && name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if IPAddress(name) != nil { return name }
        if name.hasSuffix(".") { name.removeLast() }
        guard !name.isEmpty, name.utf8.count <= 253,
              name.unicodeScalars.allSatisfy({ ($0.isASCII && $0.value > 0x20 && $0.value < 0x7F) && $0 != "/" && $0 != ":" }),
              !name.hasPrefix("."), !name.contains("..") else {
            return nil
        }
        return name.lowercased()
    }
}

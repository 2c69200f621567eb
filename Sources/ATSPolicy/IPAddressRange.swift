import TLSFacts

/// An IP address or CIDR range as an exception key may hold one since iOS 17
/// ("192.168.1.10", "10.0.0.0/8", "2001:db8::/32").
package struct IPAddressRange: Hashable, Sendable {
    let bytes: [UInt8]
    let prefixLength: Int

    /// Parses an address or a range; nil when the text is neither.
    package init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2, let address = IPAddressRange.parseAddress(String(parts[0])) else { return nil }
        if parts.count == 2 {
            guard let length = Int(parts[1]), (0...address.count * 8).contains(length), parts[1].allSatisfy(\.isNumber) else { return nil }
            prefixLength = length
        } else {
            prefixLength = address.count * 8
        }
        bytes = address
    }

    /// The address's bytes (TLSFacts.IPAddress), nil when `text` is not an address.
    package static func parseAddress(_ text: String) -> [UInt8]? { IPAddress(text)?.bytes }

    /// True when `address` (bytes of the same family) lies in the range.
    package func contains(_ address: [UInt8]) -> Bool {
        guard address.count == bytes.count else { return false }
        var remaining = prefixLength
        for (a, b) in zip(address, bytes) where remaining > 0 {
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
            if a & mask != b & mask { return false }
            remaining -= bits
        }
        return true
    }
}

import ATSTrust
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport
import TLSFacts

/// The targets serve may probe (the config's `allow`, `--allow`): host patterns and networks.
/// Empty: nothing may be probed (cli.md). docs/serve.md, "Safe to expose".
///
/// - A name is admitted by a pattern: `example.com` (that name), `*.example.com` (any name
///   under it, not the apex), `*` (any name). An IP-literal target is admitted only by a network.
/// - A network (`10.0.0.0/8`, `2001:db8::/32`, or one address, `127.0.0.1`) admits addresses.
/// - Checked twice: on the target as asked (`admits(host:)`, before anything is resolved or
///   connected: a refusal is a 403), and on every address a probe's connection is about to use
///   (`refusal(host:address:)`, through `ProbeOptions.connectionAdmission`: the target, the
///   redirects the diagnostics follow, after resolution). An address inside an allowed network
///   passes; an address outside every allowed network passes only when it is global and was
///   reached through a name a pattern admits. So no name, whatever it resolves to, aims a probe
///   at loopback, a private or link-local network unless that network is listed.
package struct AllowList: Sendable {
    private var names: Set<String> = []
    private var suffixes: [String] = []
    private var anyName = false
    private var networks: [Network] = []

    package init() {}

    package var isEmpty: Bool { names.isEmpty && suffixes.isEmpty && !anyName && networks.isEmpty }

    struct Network: Sendable, Hashable {
        let address: IPAddress
        let prefix: Int

        func contains(_ candidate: IPAddress) -> Bool {
            guard candidate.family == address.family else { return false }
            var remaining = prefix
            for (a, b) in zip(address.bytes, candidate.bytes) {
                guard remaining > 0 else { return true }
                let bits = min(8, remaining)
                let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
                guard a & mask == b & mask else { return false }
                remaining -= bits
            }
            return true
        }
    }

    package struct EntryError: Error, Sendable, CustomStringConvertible {
        /// What is wrong, for code: callers compare this, never `description`'s text.
        package enum Code: String, Sendable, Hashable, CaseIterable {
            case empty
            /// ADDR/BITS with ADDR not an IP address.
            case badAddress
            /// ADDR/BITS with BITS outside 0 to the address's width.
            case badPrefixLength
            /// Neither a host pattern nor a network.
            case notAnEntry
        }

        package var code: Code
        /// For people: the entry and what is wrong with it.
        package var description: String
    }

    /// Adds one entry: a network (`ADDR/BITS` or an address) or a host pattern.
    package mutating func add(_ entry: String) throws(EntryError) {
        let text = entry.trimmingWhitespace().lowercased()
        let shown = UntrustedText.escape(entry, limit: 120)
        guard !text.isEmpty else { throw EntryError(code: .empty, description: "an empty entry admits nothing: give a host pattern or a network") }
        if let slash = text.firstIndex(of: "/") {
            let addressText = String(text[..<slash]), bitsText = text[text.index(after: slash)...]
            guard let address = IPAddress(addressText) else { throw EntryError(code: .badAddress, description: "'\(shown)': '\(UntrustedText.escape(addressText, limit: 60))' is not an IP address") }
            let maximum = address.family.byteCount * 8
            guard !bitsText.isEmpty, bitsText.count <= 3, bitsText.allSatisfy({ $0.isASCII && $0.isNumber }), let bits = Int(bitsText), bits <= maximum else {
                throw EntryError(code: .badPrefixLength, description: "'\(shown)': the prefix length must be 0 to \(maximum)")
            }
            networks.append(Network(address: address, prefix: bits))
        } else if let address = IPAddress(text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text) {
            networks.append(Network(address: address, prefix: address.family.byteCount * 8))
        } else if text == "*" {
            anyName = true
        } else {
            let rest = text.hasPrefix("*.") ? String(text.dropFirst(2)) : text
            let labels = rest.split(separator: ".", omittingEmptySubsequences: false)
            guard rest.count <= 253, !labels.isEmpty, labels.allSatisfy(Self.isLabel) else {
                throw EntryError(code: .notAnEntry, description: "'\(shown)' is neither a host pattern (example.com, *.example.com, *) nor a network (10.0.0.0/8, 127.0.0.1)")
            }
            if text.hasPrefix("*.") { suffixes.append("." + rest) } else { names.insert(rest) }
        }
    }

    /// One label of a host pattern: letters, digits, - and _, 1 to 63 of them.
    static func isLabel(_ label: Substring) -> Bool {
        guard !label.isEmpty, label.count <= 63 else { return false }
        for character in label {
            guard character.isASCII else { return false }
            let allowed: Bool = character.isLetter || character.isNumber || character == "-" || character == "_"
            guard allowed else { return false }
        }
        return true
    }

    /// The target's host as asked (before any lookup): nil when it may be probed, else why not.
    package func refusal(host: String) -> String? {
        let name = host.lowercased().hasSuffix(".") ? String(host.lowercased().dropLast()) : host.lowercased()
        if let address = IPAddress(name) {
            return networks.contains(where: { $0.contains(address) }) ? nil : "\(name) is in no network the allow list gives"
        }
        return admitsName(name) ? nil : "\(name) matches no host pattern of the allow list"
    }

    func admitsName(_ name: String) -> Bool {
        anyName || names.contains(name) || suffixes.contains { name.hasSuffix($0) }
    }

    /// An address a connection for `host` is about to use: nil when allowed, else why not.
    package func refusal(host: String, address text: String) -> String? {
        guard let address = IPAddress(text) else { return "\(text) is not an address" }
        if networks.contains(where: { $0.contains(address) }) { return nil }
        let name = host.lowercased().hasSuffix(".") ? String(host.lowercased().dropLast()) : host.lowercased()
        let kind = IssuerFetchAddressPolicy.AddressClass(address)
        if IPAddress(name) == nil, admitsName(name), kind == .global { return nil }
        return "not connected: \(host) resolved to \(text), a \(kind.rawValue) address in no network the allow list gives"
    }
}

import TLSFacts

/// The one place a host meets an NSExceptionDomains or NSPinnedDomains key, written from Apple's
/// code (docs/rules.md, "Domain keys"). Lint, explain, check, app, `diagnose --merge`, the
/// tightener and the advisor all ask it, through `ATSConfiguration.match(host:reading:ruleSet:)`,
/// `ATSConfiguration.pinnedDomain(host:)`, `key(for:in:)` and `unmatchable(_:in:)`.
///
/// - **NSExceptionDomains** (protocol/SecProtocolConfiguration.m): `sec_protocol_configuration_set_ats_overrides`
///   stores each key as written (a key holding "/" is a CIDR range, kept apart); then
///   `sec_protocol_configuration_find_exception_for_host` looks the host up exactly
///   (`xpc_dictionary_get_dictionary(domain_map, host)`, case and trailing dot included) and,
///   while nothing applies, drops everything up to the first "." (`_find_parent_domain`) and
///   looks that up, accepting only an entry with NSIncludesSubdomains. The nearest such parent
///   wins; an entry without NSIncludesSubdomains is passed over, not a stop; an empty label is a
///   label. URL hosts arrive lower case (`Target` lower-cases them, as URL parsing does), so a key
///   with an upper-case letter never matches.
/// - **IP-address hosts** (`sec_protocol_configuration_find_exception_for_address`, iOS 17+): the
///   address and CIDR keys that cover it, the longest prefix first (`_find_cidr_exception`); an
///   address key is a range of one address. Never walked to parents.
/// - **NSPinnedDomains** (OSX/sec/Security/SecPolicy.c, `parseNSPinnedDomains`, called once for
///   NSPinnedLeafIdentities and once for NSPinnedCAIdentities): one trailing dot of the host is
///   removed ("Strip the trailing dot if any"); every key equal to the host case-insensitively
///   (`CFStringCompare(..., kCFCompareCaseInsensitive)`) applies, and every key equal to the host's
///   immediate parent (`CopyParentDomainNameFromHostName`: the text after the first ".") whose
///   NSIncludesSubdomains is the boolean true: one label only, IP-address hosts included. So a pin
///   key never reaches two labels up, and a pin key ending in a dot matches no host.
package enum DomainKeys {
    package enum Table: Sendable, Hashable {
        case exceptionDomains, pinnedDomains
    }

    // MARK: Lookups

    /// The NSExceptionDomains entry for a host name (not an address): the exact key, else the
    /// nearest parent key whose entry has NSIncludesSubdomains. `.oneLabel` (Apple's
    /// documentation) stops after one parent. Keys holding "/" (CIDR ranges) are never walked to.
    static func exceptionEntry<Entry>(host: String, in entries: [String: Entry], reading: SubdomainReading,
                                      includesSubdomains: (Entry) -> Bool) -> (key: String, entry: Entry, depth: Int)? {
        var name = Substring(host)
        let maximumDepth = reading == .oneLabel ? 1 : Int.max
        var depth = 0
        while true {
            let key = String(name)
            if !key.contains("/"), let entry = entries[key], depth == 0 || includesSubdomains(entry) {
                return (key, entry, depth)
            }
            guard depth < maximumDepth, let dot = name.firstIndex(of: ".") else { return nil }
            name = name[name.index(after: dot)...]
            depth += 1
        }
    }

    /// The IP/CIDR keys covering an address host, the longest prefix first (ties: code-point
    /// order of the key, so the answer is stable).
    static func addressEntry<Entry>(address: [UInt8], in entries: [String: Entry]) -> (key: String, entry: Entry, prefixLength: Int)? {
        var best: (key: String, entry: Entry, prefixLength: Int)?
        for (key, entry) in entries.sorted(by: { $0.key < $1.key }) {
            guard let range = IPAddressRange(key), range.contains(address) else { continue }
            if let best, best.prefixLength >= range.prefixLength { continue }
            best = (key, entry, range.prefixLength)
        }
        return best
    }

    /// The NSPinnedDomains keys that apply to `host`, in code-point order: equal to the host
    /// (its trailing dot removed) case-insensitively, or to its immediate parent when the entry's
    /// NSIncludesSubdomains is true.
    static func pinKeys<Entry>(host: String, in entries: [String: Entry], includesSubdomains: (Entry) -> Bool) -> [String] {
        let name = pinLookupName(host)
        var parent: String?
        if let dot = name.firstIndex(of: "."), name.index(after: dot) < name.endIndex {
            parent = String(name[name.index(after: dot)...])
        }
        return entries.keys.sorted().filter { key in
            let lowered = key.lowercased()
            return lowered == name || (lowered == parent && entries[key].map(includesSubdomains) == true)
        }
    }

    /// The host as the pin lookup compares it: lower case, one trailing dot removed.
    private static func pinLookupName(_ host: String) -> String {
        var name = host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        return name
    }

    // MARK: Writing and judging keys

    /// The key an entry for `host` is written under so that the lookup finds it: the host as URL
    /// parsing gives it (lower case) for NSExceptionDomains; also without a trailing dot for
    /// NSPinnedDomains.
    package static func key(for host: String, in table: Table) -> String {
        switch table {
        case .exceptionDomains: host.lowercased()
        case .pinnedDomains: pinLookupName(host)
        }
    }

    /// Why a key the lookup can never (or hardly ever) find misses, and the key that would match.
    package struct Unmatchable: Sendable, Hashable {
        package enum Reason: Sendable, Hashable {
            /// An NSExceptionDomains key with an upper-case letter: hosts are looked up exactly and
            /// URL hosts are lower case.
            case upperCase
            /// A key ending in a dot: an NSExceptionDomains key then matches only a host written
            /// with the dot (`https://example.com./`); an NSPinnedDomains key matches no host.
            case trailingDot
        }
        package var reasons: [Reason]
        /// The key as it should be written.
        package var rename: String
    }

    /// Whether `key` misses the hosts it names, and how to write it; nil when the lookup finds
    /// it as written. Address and CIDR keys are judged by their own rules (`IPAddressRange`);
    /// other malformed keys (schemes, ports, wildcards) are lint's.
    package static func unmatchable(_ key: String, in table: Table) -> Unmatchable? {
        guard !key.isEmpty, IPAddressRange(key) == nil, !key.contains("/") else { return nil }
        var reasons: [Unmatchable.Reason] = []
        if table == .exceptionDomains && key.contains(where: \.isUppercase) { reasons.append(.upperCase) }
        if key.hasSuffix(".") && key.count > 1 { reasons.append(.trailingDot) }
        guard !reasons.isEmpty else { return nil }
        var rename = table == .exceptionDomains ? key.lowercased() : key
        while rename.hasSuffix(".") { rename.removeLast() }
        guard !rename.isEmpty else { return nil }
        return Unmatchable(reasons: reasons, rename: rename)
    }
}

import TextSupport
import TLSFacts

/// The exception entry that governs a host, and how it was found.
public struct DomainMatch: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// The key equals the host.
        case exact
        /// The host is `depth` labels below the key, and the key has NSIncludesSubdomains.
        case subdomain(depth: Int)
        /// An IP/CIDR key (iOS 17+) covering the address, with its prefix length.
        case addressRange(prefixLength: Int)
    }

    /// The key as written in NSExceptionDomains.
    public var key: String
    public var exception: DomainException
    public var kind: Kind
    /// The entry is one of the platform's built-in exceptions (`BuiltInException`), not the app's.
    public var isBuiltIn: Bool

    public init(key: String, exception: DomainException, kind: Kind, isBuiltIn: Bool = false) {
        self.key = key
        self.exception = exception
        self.kind = kind
        self.isBuiltIn = isBuiltIn
    }
}

/// Where the two readings of NSIncludesSubdomains pick different entries for one host.
public struct SubdomainDisagreement: Sendable, Hashable {
    public var host: String
    public var anyDepth: DomainMatch?
    public var oneLabel: DomainMatch?

    /// One line for people.
    public var message: String {
        func describe(_ m: DomainMatch?) -> String {
            m.map { "\($0.isBuiltIn ? "the built-in entry" : "entry") \"\(UntrustedText.escape($0.key, limit: 200))\"" } ?? "no entry"
        }
        return "NSIncludesSubdomains: Apple's code (any depth) applies \(describe(anyDepth)) to \(host); "
            + "the documentation (one label) applies \(describe(oneLabel))"
    }
}

extension ATSConfiguration {
    /// The exception entry for `host` (`DomainKeys`, Apple's lookup): the exact key, else the
    /// nearest parent key with NSIncludesSubdomains, among the app's keys and the rule set's
    /// built-in exceptions (`BuiltInException`; an app key equal to a built-in one replaces it).
    /// IP hosts match only IP/CIDR keys (longest prefix), and only in rule sets where IP
    /// addresses are subject to ATS.
    public func match(host: String, reading: SubdomainReading, ruleSet: RuleSet) -> DomainMatch? {
        if let address = IPAddressRange.parseAddress(host) {
            guard ruleSet.ipAddressesSubjectToATS,
                  let found = DomainKeys.addressEntry(address: address, in: exceptionDomains) else { return nil }
            return DomainMatch(key: found.key, exception: found.entry, kind: .addressRange(prefixLength: found.prefixLength))
        }
        var table = exceptionDomains
        var builtInKeys: Set<String> = []
        for builtIn in ruleSet.builtInExceptions where table[builtIn.domain] == nil {
            table[builtIn.domain] = builtIn.exception
            builtInKeys.insert(builtIn.domain)
        }
        guard let found = DomainKeys.exceptionEntry(host: host, in: table, reading: reading,
                                                    includesSubdomains: \.includesSubdomains) else { return nil }
        return DomainMatch(key: found.key, exception: found.entry,
                           kind: found.depth == 0 ? .exact : .subdomain(depth: found.depth),
                           isBuiltIn: builtInKeys.contains(found.key))
    }

    /// The two readings of NSIncludesSubdomains side by side, when they differ for `host`.
    public func subdomainDisagreement(host: String, ruleSet: RuleSet) -> SubdomainDisagreement? {
        let any = match(host: host, reading: .anyDepth, ruleSet: ruleSet)
        let one = match(host: host, reading: .oneLabel, ruleSet: ruleSet)
        return any == one ? nil : SubdomainDisagreement(host: host, anyDepth: any, oneLabel: one)
    }

    /// The NSPinnedDomains pins for `host` (`DomainKeys`, Apple's `parseNSPinnedDomains`): the
    /// identities of every entry that applies are joined, per identity key; a key absent from
    /// every such entry leaves that kind unpinned. nil when no entry applies.
    public func pinnedDomain(host: String) -> PinnedDomainMatch? {
        let keys = DomainKeys.pinKeys(host: host, in: pinnedDomains, includesSubdomains: \.includesSubdomains)
        guard !keys.isEmpty else { return nil }
        var ca: [String]?
        var leaf: [String]?
        for key in keys {
            guard let entry = pinnedDomains[key] else { continue }
            if let identities = entry.caIdentities { ca = (ca ?? []) + identities }
            if let identities = entry.leafIdentities { leaf = (leaf ?? []) + identities }
        }
        return PinnedDomainMatch(keys: keys, pins: PinSet(includesSubdomains: false, caIdentities: ca, leafIdentities: leaf))
    }
}

/// The NSPinnedDomains entries that apply to one host and the pins they make together.
public struct PinnedDomainMatch: Sendable, Hashable {
    /// Every key that applies (exact or immediate parent), in code-point order.
    public var keys: [String]
    /// The identities of those entries joined per identity key.
    public var pins: PinSet
    /// The keys for people: "example.com", or "example.com, www.example.com".
    public var key: String { keys.joined(separator: ", ") }
}

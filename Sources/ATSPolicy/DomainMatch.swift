import TextSupport
import TLSFacts

/// How far NSIncludesSubdomains reaches. Sources disagree (ats-reference section 3).
public enum SubdomainReading: String, Sendable, Hashable, Codable, CaseIterable {
    /// Apple's code: every subdomain, at any depth (the default).
    case anyDepth
    /// Apple's documentation: one extra label only.
    case oneLabel
}

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
    /// The exception entry for `host`: an exact key first, else the nearest parent key with
    /// NSIncludesSubdomains (`SubdomainWalk`, Apple's walk), among the app's keys and the rule
    /// set's built-in exceptions (`BuiltInException`; an app key equal to a built-in one replaces
    /// it). IP hosts match only IP/CIDR keys (longest prefix), and only in rule sets where IP
    /// addresses are subject to ATS.
    public func match(host: String, reading: SubdomainReading = .anyDepth, ruleSet: RuleSet = .documented) -> DomainMatch? {
        if let address = IPAddressRange.parseAddress(host) {
            guard ruleSet.ipAddressesSubjectToATS else { return nil }
            var best: DomainMatch?
            for (key, exception) in exceptionDomains {
                guard let range = IPAddressRange(key), range.contains(address) else { continue }
                if case .addressRange(let length)? = best?.kind, length >= range.prefixLength { continue }
                best = DomainMatch(key: key, exception: exception, kind: .addressRange(prefixLength: range.prefixLength))
            }
            return best
        }
        var table = exceptionDomains
        var builtInKeys: Set<String> = []
        for builtIn in ruleSet.builtInExceptions where table[builtIn.domain] == nil {
            table[builtIn.domain] = builtIn.exception
            builtInKeys.insert(builtIn.domain)
        }
        guard let found = SubdomainWalk.nearest(host: host, in: table, reading: reading,
                                                includesSubdomains: \.includesSubdomains) else { return nil }
        return DomainMatch(key: found.key, exception: found.entry,
                           kind: found.depth == 0 ? .exact : .subdomain(depth: found.depth),
                           isBuiltIn: builtInKeys.contains(found.key))
    }

    /// The two readings of NSIncludesSubdomains side by side, when they differ for `host`.
    public func subdomainDisagreement(host: String, ruleSet: RuleSet = .documented) -> SubdomainDisagreement? {
        let any = match(host: host, reading: .anyDepth, ruleSet: ruleSet)
        let one = match(host: host, reading: .oneLabel, ruleSet: ruleSet)
        return any == one ? nil : SubdomainDisagreement(host: host, anyDepth: any, oneLabel: one)
    }

    /// The NSPinnedDomains pins for `host`, found as Apple's code finds them (OSX/sec/Security/SecPolicy.c,
    /// `parseNSPinnedDomains`, called once for NSPinnedLeafIdentities and once for NSPinnedCAIdentities):
    /// - one trailing dot of the host is removed ("Strip the trailing dot if any");
    /// - every key equal to the host (case-insensitively) applies, and every key equal to the host's
    ///   immediate parent (the text after its first ".") whose NSIncludesSubdomains is the boolean
    ///   true: one label only, IP-address hosts included (`CopyParentDomainNameFromHostName`);
    /// - the identities of all the entries that apply are joined, per identity key; a key absent
    ///   from every such entry leaves that kind unpinned.
    /// So this lookup is not `SubdomainWalk`: NSPinnedDomains never reaches two labels up.
    /// nil when no entry applies.
    public func pinnedDomain(host: String) -> PinnedDomainMatch? {
        var name = host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        var parent: String?
        if let dot = name.firstIndex(of: "."), name.index(after: dot) < name.endIndex {
            parent = String(name[name.index(after: dot)...])
        }
        var keys: [String] = []
        var ca: [String]?
        var leaf: [String]?
        for (key, entry) in pinnedDomains.sorted(by: { $0.key < $1.key }) {
            let lowered = key.lowercased()
            guard lowered == name || (entry.includesSubdomains && lowered == parent) else { continue }
            keys.append(key)
            if let identities = entry.caIdentities { ca = (ca ?? []) + identities }
            if let identities = entry.leafIdentities { leaf = (leaf ?? []) + identities }
        }
        guard !keys.isEmpty else { return nil }
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

/// The NSIncludesSubdomains walk of NSExceptionDomains, as Apple's code does it (SecProtocolConfiguration.m, sec_protocol_configuration_find_exception_for_host
/// and _find_parent_domain): look the host up as a key; then drop everything up to and including
/// the first "." and look the rest up, accepting only an entry with NSIncludesSubdomains; repeat
/// until no "." is left. (NSPinnedDomains has its own lookup, one label deep:
/// `ATSConfiguration.pinnedDomain(host:)`.) So:
/// - the nearest parent wins (an entry without NSIncludesSubdomains is passed over, not a stop);
/// - an empty label is a label: "a..example.com" is two labels below "example.com";
/// - keys holding "/" are CIDR ranges, which Apple keeps apart and never walks to; other keys,
///   IP-like ones included, are plain strings to the walk;
/// - an IP address host is looked up exactly and never walked (Apple's
///   sec_protocol_configuration_find_exception_for_address has no parents; ranges are matched
///   by `ATSConfiguration.match` before this walk).
/// Keys and host compare case-insensitively (atsprobe's reading: URL hosts arrive lowercased,
/// and the linter reports a key that is not). `.oneLabel` (the documentation) stops after one parent.
/// One trailing dot of the host is removed before the lookup (`example.com.` is looked up as
/// `example.com`), as Apple's pin lookup does (OSX/sec/Security/SecPolicy.c, `parseNSPinnedDomains`,
/// "Strip the trailing dot if any"); so a key ending in a dot matches no host.
enum SubdomainWalk {
    static func nearest<Entry>(host: String, in entries: [String: Entry], reading: SubdomainReading,
                               includesSubdomains: (Entry) -> Bool) -> (key: String, entry: Entry, depth: Int)? {
        var byName: [String: (key: String, entry: Entry)] = [:]
        for (key, entry) in entries where !key.contains("/") {
            // Keys differing only in case: the lower-case one, which Apple's exact lookup of a
            // (lower-cased) URL host finds; else the first in code-point order, so the answer is stable.
            let name = key.lowercased()
            if let kept = byName[name], (kept.key == name ? 0 : 1, kept.key) < (key == name ? 0 : 1, key) { continue }
            byName[name] = (key, entry)
        }
        var name = Substring(host.lowercased())
        if name.hasSuffix(".") { name = name.dropLast() }
        let maximumDepth = IPAddress.isAddress(host) ? 0 : (reading == .oneLabel ? 1 : Int.max)
        var depth = 0
        while true {
            if let found = byName[String(name)], depth == 0 || includesSubdomains(found.entry) {
                return (found.key, found.entry, depth)
            }
            guard depth < maximumDepth, let dot = name.firstIndex(of: ".") else { return nil }
            name = name[name.index(after: dot)...]
            depth += 1
        }
    }
}

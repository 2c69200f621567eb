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

    public init(key: String, exception: DomainException, kind: Kind) {
        self.key = key
        self.exception = exception
        self.kind = kind
    }
}

/// Where the two readings of NSIncludesSubdomains pick different entries for one host.
public struct SubdomainDisagreement: Sendable, Hashable {
    public var host: String
    public var anyDepth: DomainMatch?
    public var oneLabel: DomainMatch?

    /// One line for people.
    public var message: String {
        func describe(_ m: DomainMatch?) -> String { m.map { "entry \"\($0.key)\"" } ?? "no entry" }
        return "NSIncludesSubdomains: Apple's code (any depth) applies \(describe(anyDepth)) to \(host); "
            + "the documentation (one label) applies \(describe(oneLabel))"
    }
}

extension ATSConfiguration {
    /// The exception entry for `host`: an exact key first, else the nearest parent key with
    /// NSIncludesSubdomains (`SubdomainWalk`, Apple's walk). IP hosts match only IP/CIDR keys
    /// (longest prefix), and only in rule sets where IP addresses are subject to ATS.
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
        guard let found = SubdomainWalk.nearest(host: host, in: exceptionDomains, reading: reading,
                                                includesSubdomains: \.includesSubdomains) else { return nil }
        return DomainMatch(key: found.key, exception: found.entry,
                           kind: found.depth == 0 ? .exact : .subdomain(depth: found.depth))
    }

    /// The two readings of NSIncludesSubdomains side by side, when they differ for `host`.
    public func subdomainDisagreement(host: String, ruleSet: RuleSet = .documented) -> SubdomainDisagreement? {
        let any = match(host: host, reading: .anyDepth, ruleSet: ruleSet)
        let one = match(host: host, reading: .oneLabel, ruleSet: ruleSet)
        return any == one ? nil : SubdomainDisagreement(host: host, anyDepth: any, oneLabel: one)
    }

    /// The NSPinnedDomains entry for `host` (exact first, then the nearest parent with
    /// NSIncludesSubdomains), by the same walk as `match`.
    public func pinnedDomain(host: String, reading: SubdomainReading = .anyDepth) -> (key: String, pins: PinnedDomain)? {
        SubdomainWalk.nearest(host: host, in: pinnedDomains, reading: reading, includesSubdomains: \.includesSubdomains)
            .map { ($0.key, $0.entry) }
    }
}

/// The one NSIncludesSubdomains walk, for NSExceptionDomains and NSPinnedDomains alike, as
/// Apple's code does it (SecProtocolConfiguration.m, sec_protocol_configuration_find_exception_for_host
/// and _find_parent_domain): look the host up as a key; then drop everything up to and including
/// the first "." and look the rest up, accepting only an entry with NSIncludesSubdomains; repeat
/// until no "." is left. So:
/// - the nearest parent wins (an entry without NSIncludesSubdomains is passed over, not a stop);
/// - an empty label is a label: "a..example.com" is two labels below "example.com";
/// - the empty key is a parent only of a host ending in "." ("example.com." walks to "");
/// - keys holding "/" are CIDR ranges, which Apple keeps apart and never walks to; other keys,
///   IP-like ones included, are plain strings to the walk;
/// - an IP address host is looked up exactly and never walked (Apple's
///   sec_protocol_configuration_find_exception_for_address has no parents; ranges are matched
///   by `ATSConfiguration.match` before this walk).
/// Keys and host compare case-insensitively (atsprobe's reading: URL hosts arrive lowercased,
/// and the linter reports a key that is not). `.oneLabel` (the documentation) stops after one parent.
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

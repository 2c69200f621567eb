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
    /// The exception entry for `host`: an exact key first, else the longest key that covers the
    /// host as a subdomain. IP hosts match only IP/CIDR keys (longest prefix), and only in rule
    /// sets where IP addresses are subject to ATS; a name key never covers an IP and the reverse.
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
        let name = host.lowercased()
        var best: DomainMatch?
        for (key, exception) in exceptionDomains {
            let k = key.lowercased()
            guard !k.isEmpty, IPAddressRange(k) == nil else { continue }
            if k == name { return DomainMatch(key: key, exception: exception, kind: .exact) }
            guard exception.includesSubdomains, name.hasSuffix("." + k) else { continue }
            let depth = name.dropLast(k.count + 1).split(separator: ".", omittingEmptySubsequences: false).count
            if reading == .oneLabel && depth != 1 { continue }
            if let current = best, current.key.count >= key.count { continue }
            best = DomainMatch(key: key, exception: exception, kind: .subdomain(depth: depth))
        }
        return best
    }

    /// The two readings of NSIncludesSubdomains side by side, when they differ for `host`.
    public func subdomainDisagreement(host: String, ruleSet: RuleSet = .documented) -> SubdomainDisagreement? {
        let any = match(host: host, reading: .anyDepth, ruleSet: ruleSet)
        let one = match(host: host, reading: .oneLabel, ruleSet: ruleSet)
        return any == one ? nil : SubdomainDisagreement(host: host, anyDepth: any, oneLabel: one)
    }

    /// The NSPinnedDomains entry for `host` (exact first, then the longest covering key).
    public func pinnedDomain(host: String, reading: SubdomainReading = .anyDepth) -> (key: String, pins: PinnedDomain)? {
        let name = host.lowercased()
        var best: (key: String, pins: PinnedDomain)?
        for (key, pins) in pinnedDomains {
            let k = key.lowercased()
            if k == name { return (key, pins) }
            guard pins.includesSubdomains, name.hasSuffix("." + k) else { continue }
            let depth = name.dropLast(k.count + 1).split(separator: ".").count
            if reading == .oneLabel && depth != 1 { continue }
            if let current = best, current.key.count >= key.count { continue }
            best = (key, pins)
        }
        return best
    }
}

import TLSFacts

/// How far NSIncludesSubdomains reaches. Sources disagree (ats-reference section 3).
public enum SubdomainReading: String, Sendable, Hashable, Codable, CaseIterable {
    /// Apple's code: every subdomain, at any depth (the default).
    case anyDepth
    /// Apple's documentation: one extra label only.
    case oneLabel
}

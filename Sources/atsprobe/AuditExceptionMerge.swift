import ATSPolicy
import TLSFacts

extension DomainException {
    /// One entry that loads every audited target of a domain (several ports or paths of one
    /// host each suggest their own): each relaxation either asks for, and nothing more.
    func merged(with other: DomainException) -> DomainException {
        var merged = self
        merged.includesSubdomains = includesSubdomains || other.includesSubdomains
        merged.allowsInsecureHTTPLoads = allowsInsecureHTTPLoads || other.allowsInsecureHTTPLoads
        merged.minimumTLSVersion = Self.lowerMinimum(minimumTLSVersion, other.minimumTLSVersion)
        if requiresForwardSecrecy == false || other.requiresForwardSecrecy == false { merged.requiresForwardSecrecy = false }
        if requiresCertificateTransparency == false || other.requiresCertificateTransparency == false {
            merged.requiresCertificateTransparency = false
        }
        return merged
    }

    /// The lower of two minimums; an absent key means the default, TLS 1.2.
    private static func lowerMinimum(_ a: String?, _ b: String?) -> String? {
        guard a != nil || b != nil else { return nil }
        let versionA = parseMinimumTLSVersion(a) ?? .tls12
        let versionB = parseMinimumTLSVersion(b) ?? .tls12
        let lower = min(versionA, versionB)
        if lower == versionA, a != nil { return a }
        if lower == versionB, b != nil { return b }
        return nil  // both at the default; only one wrote it
    }
}

import ATSPolicy
import TLSFacts

/// How far an exception entry relaxes ATS, key by key, compared by effect (Apple's defaults
/// fill in absent keys), so entries written differently but meaning the same compare equal.
extension DomainException {
    /// The relaxing keys where this entry allows less than `needed`: they must be widened.
    package func keysNarrower(than needed: DomainException) -> [String] {
        var keys: [String] = []
        if effectiveMinimumTLSVersion > needed.effectiveMinimumTLSVersion { keys.append(ATSKey.exceptionMinimumTLSVersion.name) }
        if effectiveRequiresForwardSecrecy && !needed.effectiveRequiresForwardSecrecy { keys.append(ATSKey.exceptionRequiresForwardSecrecy.name) }
        if !allowsInsecureHTTPLoads && needed.allowsInsecureHTTPLoads { keys.append(ATSKey.exceptionAllowsInsecureHTTPLoads.name) }
        if !includesSubdomains && needed.includesSubdomains { keys.append(ATSKey.includesSubdomains.name) }
        return keys
    }

    /// The relaxing keys where this entry allows more than `needed`: it could be tightened.
    /// NSIncludesSubdomains is not judged: it covers hosts that were not probed.
    package func keysWider(than needed: DomainException) -> [String] {
        var keys: [String] = []
        if effectiveMinimumTLSVersion < needed.effectiveMinimumTLSVersion { keys.append(ATSKey.exceptionMinimumTLSVersion.name) }
        if !effectiveRequiresForwardSecrecy && needed.effectiveRequiresForwardSecrecy { keys.append(ATSKey.exceptionRequiresForwardSecrecy.name) }
        if allowsInsecureHTTPLoads && !needed.allowsInsecureHTTPLoads { keys.append(ATSKey.exceptionAllowsInsecureHTTPLoads.name) }
        return keys
    }

    /// This entry with every key widened just far enough to also allow what `other` allows;
    /// keys already wide enough keep their spelling.
    package func widened(toCover other: DomainException) -> DomainException {
        var result = self
        if effectiveMinimumTLSVersion > other.effectiveMinimumTLSVersion { result.minimumTLSVersion = other.effectiveMinimumTLSVersion.plistName }
        if effectiveRequiresForwardSecrecy && !other.effectiveRequiresForwardSecrecy { result.requiresForwardSecrecy = false }
        result.allowsInsecureHTTPLoads = allowsInsecureHTTPLoads || other.allowsInsecureHTTPLoads
        result.includesSubdomains = includesSubdomains || other.includesSubdomains
        return result
    }
}

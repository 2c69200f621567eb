import ATSPolicy
import TLSFacts

/// What every checked host under one NSExceptionDomains entry needs together: the weakest
/// value any of them needs, key by key. nil means that key was not measured (http:// only).
struct EntryNeed: Hashable {
    var insecureHTTP = false
    var minimum: TLSVersion?
    var forwardSecrecyOff: Bool?

    /// nil when a host is undecided: the entry then stays as written.
    init?(combining requirements: [HostNeed.Requirement]) {
        for requirement in requirements {
            switch requirement {
            case .undecided: return nil
            case .cleartext: insecureHTTP = true
            case .nothing: add(DomainException())
            case .exception(let exception): add(exception)
            }
        }
    }

    private mutating func add(_ exception: DomainException) {
        insecureHTTP = insecureHTTP || exception.allowsInsecureHTTPLoads
        minimum = min(minimum ?? exception.effectiveMinimumTLSVersion, exception.effectiveMinimumTLSVersion)
        forwardSecrecyOff = (forwardSecrecyOff ?? false) || !exception.effectiveRequiresForwardSecrecy
    }
}

import TextSupport

/// What the tightening left as written, and why, as a value: callers find a note by its case and
/// key, never by its words; `text` is its one line for people.
public enum TighteningNote: Sendable, Hashable, CustomStringConvertible {
    /// Apple's built-in exception `key` governs `host`: nothing of the app's to compare.
    case builtInException(host: String, key: String)
    /// NSAllowsLocalNetworking exempts `host` from ATS.
    case localNetworkingExempt(host: String)
    /// IP addresses are not subject to ATS under the rule set named.
    case ipAddressExempt(host: String, ruleSet: String)
    /// An NSExceptionDomains entry no checked host falls under, kept as written.
    case entryUnused(key: String)
    /// An NSExceptionDomains entry kept as written: these hosts under it could not be decided.
    case entryUndecided(key: String, hosts: [String])
    /// NSAllowsArbitraryLoads kept: it governs these hosts, which could not be decided.
    case arbitraryLoadsUndecided(hosts: [String])
    /// `app`: no dictionary makes `host` load; left out of the tightening (its server fix says why).
    case noDictionaryHelps(host: String)
    /// `app`: `host` is named only in the dictionary and not reachable on port 443; left out.
    case unreachableGuess(host: String)

    /// The NSExceptionDomains key an entry's note is about.
    public var entryKey: String? {
        switch self {
        case .entryUnused(let key), .entryUndecided(let key, _): key
        default: nil
        }
    }

    /// The one line for people (hosts and keys from the dictionary escaped, as before, except
    /// `app`'s own two, which its renderers escape).
    public var text: String {
        func esc(_ text: String) -> String { UntrustedText.escape(text, limit: 255) }
        func list(_ hosts: [String]) -> String { hosts.map(esc).joined(separator: ", ") }
        switch self {
        case .builtInException(let host, let key): return "\(esc(host)): Apple's built-in exception \"\(esc(key))\" governs it; not compared"
        case .localNetworkingExempt(let host): return "\(esc(host)): NSAllowsLocalNetworking exempts it from ATS; not compared"
        case .ipAddressExempt(let host, let ruleSet): return "\(esc(host)): IP addresses are not subject to ATS under \(ruleSet); not compared"
        case .entryUnused(let key): return "NSExceptionDomains entry \"\(esc(key))\" kept as written: no checked host falls under it"
        case .entryUndecided(let key, let hosts): return "NSExceptionDomains entry \"\(esc(key))\" kept as written: \(list(hosts)) could not be decided"
        case .arbitraryLoadsUndecided(let hosts): return "NSAllowsArbitraryLoads kept: it governs \(list(hosts)), which could not be decided"
        case .noDictionaryHelps(let host): return "\(host): no dictionary makes it load; left out of the tightening (see its server fix)"
        case .unreachableGuess(let host): return "\(host): named only in the dictionary and not reachable on port 443; left out of the tightening"
        }
    }

    public var description: String { text }
}

import ATSPolicy
import TLSFacts

/// The suggested NSExceptionDomains entries for many probed targets, merged into one
/// dictionary: hosts that need nothing are left out, and so are hosts no entry can help.
package struct SuggestedExceptions: Sendable, Hashable {
    /// A target no exception makes load, and why.
    package struct Unhelpable: Sendable, Hashable {
        package var target: String
        package var host: String
        package var reason: String
    }

    /// NSExceptionDomains, keyed by domain.
    package private(set) var domains: [String: DomainException] = [:]
    package private(set) var unhelpable: [Unhelpable] = []
    /// Hosts whose need is served by a parent entry with NSIncludesSubdomains, host -> key.
    package private(set) var coveredBy: [String: String] = [:]

    /// `includeSubdomains`: when every probed host under a parent domain (and the parent, if
    /// probed) needs the same entry, and there are at least two, write one parent entry with
    /// NSIncludesSubdomains instead of one entry each (docs/exceptions.md).
    package init(_ advice: [HostAdvice], includeSubdomains: Bool = false) {
        self.init(advice.map { Need(target: $0.target, host: $0.host, suggestion: $0.suggestion) }, includeSubdomains: includeSubdomains)
    }

    /// What one probed target needs: the target as given, its host, the advisor's suggestion
    /// (from a `HostAdvice`, or from a diagnostics document's suggestion).
    package struct Need: Sendable {
        package var target: String
        package var host: String
        package var suggestion: ExceptionSuggestion

        package init(target: String, host: String, suggestion: ExceptionSuggestion) {
            self.target = target
            self.host = host
            self.suggestion = suggestion
        }
    }

    package init(_ advice: [Need], includeSubdomains: Bool = false) {
        // One need per host: the same host on several ports needs the widest of its entries.
        var needs: [String: DomainException] = [:]
        var probed: Set<String> = []
        for item in advice {
            let host = DomainKeys.key(for: item.host, in: .exceptionDomains)
            probed.insert(host)
            switch item.suggestion {
            case .none: break
            case .exception(_, let exception, _):
                needs[host] = needs[host].map { $0.widened(toCover: exception) } ?? exception
            case .impossible(let reason):
                unhelpable.append(Unhelpable(target: item.target, host: host, reason: reason))
            }
        }
        // A host that some target could not load at all must not be swept under a parent entry.
        let unhelpableHosts = Set(unhelpable.map(\.host))
        if includeSubdomains {
            for parent in SuggestedExceptions.parentCandidates(of: probed) {
                let members = probed.filter { ($0 == parent || $0.hasSuffix("." + parent)) && coveredBy[$0] == nil }
                guard members.count >= 2, members.allSatisfy({ !unhelpableHosts.contains($0) }),
                      let first = needs[members.first!], members.allSatisfy({ needs[$0] == first }) else { continue }
                var entry = first
                entry.includesSubdomains = true
                domains[parent] = entry
                for member in members { coveredBy[member] = parent; needs[member] = nil }
            }
        }
        for (host, exception) in needs { domains[host] = exception }
        unhelpable.sort { ($0.host, $0.target) < ($1.host, $1.target) }
    }

    /// The immediate parent of every probed name with at least two labels left (no public
    /// suffix list: a bare TLD is never a candidate), broadest first so one entry covers most.
    static func parentCandidates(of hosts: Set<String>) -> [String] {
        var parents: Set<String> = []
        for host in hosts where IPAddressRange.parseAddress(host) == nil {
            let labels = host.split(separator: ".", omittingEmptySubsequences: false)
            guard labels.count >= 3 else { continue }
            parents.insert(labels.dropFirst().joined(separator: "."))
        }
        return parents.sorted { ($0.split(separator: ".").count, $0) < ($1.split(separator: ".").count, $1) }
    }

    /// The NSAppTransportSecurity dictionary: only NSExceptionDomains, and only when non-empty.
    package var configuration: ATSConfiguration { ATSConfiguration(exceptionDomains: domains) }
}

import ATSPolicy
import PropertyList
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

/// Merges suggested exception entries into an app's property list. Every other key keeps its
/// value; an existing entry is widened only as far as needed and never narrowed: where it is
/// wider than needed it is kept, with a note that it could be tightened.
public struct InfoPlistMerge {
    /// Why the merge cannot be done: the file's ATS keys have the wrong types.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// Which key is not a dictionary, for code: callers compare this, never the text.
        public enum Code: String, Sendable, Hashable, CaseIterable {
            case appTransportSecurityNotADictionary
            case exceptionDomainsNotADictionary
        }

        public var code: Code
        /// For people: the key and that nothing was merged.
        public var description: String
    }

    /// The property list with the entries merged in.
    public private(set) var root: [String: PropertyListValue]
    /// One line each, for stderr: what was widened, added, or could be tightened.
    public private(set) var notes: [String] = []

    /// `ruleSet` decides which existing entry already governs a host (IP/CIDR keys are read only
    /// where IP addresses are subject to ATS): the rule set the probes ran under.
    public init(_ document: PropertyListDocument, adding suggested: [String: DomainException],
                ruleSet: RuleSet) throws(Failure) {
        root = document.root
        let bare = document.isBareATSDictionary
        var ats: [String: PropertyListValue]
        if bare {
            ats = document.root
        } else if let value = document.root[ATSKey.appTransportSecurity.name] {
            guard let dict = value.dictionaryValue else {
                throw Failure(code: .appTransportSecurityNotADictionary, description: "\(ATSKey.appTransportSecurity.name) is not a dictionary; not merging")
            }
            ats = dict
        } else {
            ats = [:]
        }
        var domains: [String: PropertyListValue] = [:]
        if let value = ats[ATSKey.exceptionDomains.name] {
            guard let dict = value.dictionaryValue else {
                throw Failure(code: .exceptionDomainsNotADictionary, description: "\(ATSKey.exceptionDomains.name) is not a dictionary; not merging")
            }
            domains = dict
        }
        let existing = ATSConfiguration(propertyList: ats)
        if existing.effectiveAllowsArbitraryLoads && !suggested.isEmpty {
            notes.append("NSAllowsArbitraryLoads is set: each listed domain is judged by its own entry instead, so http:// loads to it need NSExceptionAllowsInsecureHTTPLoads")
        }
        for (domain, needed) in suggested.sorted(by: { $0.key < $1.key }) {
            merge(domain, needed, into: &domains, existing: existing, ruleSet: ruleSet)
        }
        if !suggested.isEmpty || ats[ATSKey.exceptionDomains.name] != nil {
            ats[ATSKey.exceptionDomains.name] = .dictionary(domains)
        }
        if bare {
            root = ats
        } else {
            root[ATSKey.appTransportSecurity.name] = .dictionary(ats)
        }
    }

    private mutating func merge(_ domain: String, _ needed: DomainException, into domains: inout [String: PropertyListValue],
                                existing: ATSConfiguration, ruleSet: RuleSet) {
        // The entry written for this domain: its key as Apple's lookup finds it (`DomainKeys`:
        // exactly; a `PFS5.Test` entry does not cover pfs5.test, and is left to lint).
        let written = DomainKeys.key(for: domain, in: .exceptionDomains)
        if domains[written] != nil {
            let key = written
            var entry = domains[key]?.dictionaryValue ?? [:]
            let current = DomainException(propertyList: entry)
            let narrower = current.keysNarrower(than: needed)
            if !narrower.isEmpty {
                let widened = current.widened(toCover: needed).propertyList
                for name in narrower { entry[name] = widened[name] }
                domains[key] = .dictionary(entry)
                notes.append("widened the entry for \(key): \(narrower.map { "\($0) = \(describe(widened[$0]))" }.joined(separator: ", "))")
            }
            let wider = current.keysWider(than: needed)
            if !wider.isEmpty {
                notes.append("the entry for \(key) is wider than this probe needs and was kept; it could be tightened: \(wider.joined(separator: ", "))")
            }
            return
        }
        // A parent entry with NSIncludesSubdomains may already govern the host.
        if let match = existing.match(host: domain, reading: .anyDepth, ruleSet: ruleSet) {
            let narrower = match.exception.keysNarrower(than: needed).filter { $0 != ATSKey.includesSubdomains.name }
            if narrower.isEmpty {
                let wider = match.exception.keysWider(than: needed)
                if !wider.isEmpty {
                    notes.append("\(domain) is covered by the entry for \(match.key), which is wider than this probe needs; it could be tightened: \(wider.joined(separator: ", "))")
                }
                return
            }
            // A new, more specific entry wins over the parent's for this host: keep the
            // parent's relaxations in it so nothing narrows.
            var inherited = match.exception
            inherited.includesSubdomains = needed.includesSubdomains
            domains[written] = .dictionary(inherited.widened(toCover: needed).propertyList)
            notes.append("added an entry for \(domain): the entry for \(match.key) covers it but lacks \(narrower.joined(separator: ", ")); the new entry keeps \(match.key)'s keys")
            return
        }
        domains[written] = .dictionary(needed.propertyList)
    }

    private func describe(_ value: PropertyListValue?) -> String {
        value?.scalarText ?? "nil"
    }
}

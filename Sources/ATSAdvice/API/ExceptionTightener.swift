import ATSPolicy
import PropertyList
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport
import TLSFacts

/// Compares an app's NSAppTransportSecurity dictionary with what the checked hosts need
/// (`atsprobe plist check`) and writes the tightened dictionary. Pure: the needs come from the
/// diagnostics. Only what was measured is changed: NSAllowsArbitraryLoads and the exception
/// entries the checked hosts fall under; every other key is kept as written.
public enum ExceptionTightener {
    static let root = ATSKey.appTransportSecurity.name
    static let domainsPath = root + "." + ATSKey.exceptionDomains.name

    /// `ats` is the app's NSAppTransportSecurity dictionary (its contents). `needs` holds one
    /// element per checked target (a host may appear more than once).
    public static func tighten(_ ats: [String: PropertyListValue], needs: [HostNeed], ruleSet: RuleSet) -> TighteningReport {
        var pass = TighteningPass(ats: ats, ruleSet: ruleSet)
        pass.run(needs)
        var report = TighteningReport(findings: pass.findings, notes: pass.notes, tightened: pass.tightened)
        removeIgnored(from: &report, governing: pass.governing)
        return report
    }

    /// Lint errors that mean ATS ignores the key (or the whole entry, for domain keys that
    /// match no host, `DomainKeys.unmatchable`): removing them changes no load (an entry that
    /// governs a checked host is kept), and the tightened dictionary then passes `plist lint`
    /// without errors.
    static let ignoredKeyRules: Set<String> = [LintRule.unknownKey.id, LintRule.misplacedKey.id, LintRule.wrongType.id,
                                              LintRule.tlsVersionUnparsed.id, LintRule.niapValue.id]
    static let ignoredEntryRules: Set<String> = [LintRule.domainEmpty.id, LintRule.domainWhitespace.id, LintRule.domainScheme.id,
                                                LintRule.domainPort.id, LintRule.domainPath.id, LintRule.domainWildcard.id,
                                                LintRule.domainUppercase.id, LintRule.domainTrailingDot.id, LintRule.cidrMalformed.id]

    /// The first lint error of `rules` for `ats` alone, wrapped as an Info.plist root. Each key is
    /// linted on its own, so a finding's dotted path (domain keys contain dots) need not be parsed.
    private static func ignored(_ ats: [String: PropertyListValue], rules: Set<String>) -> LintFinding? {
        ATSLinter.lint([root: .dictionary(ats)]).first { $0.severity == .error && rules.contains($0.rule) }
    }

    static func removeIgnored(from report: inout TighteningReport, governing: Set<String>) {
        var ats = report.tightened
        func drop(_ path: String, _ finding: LintFinding) {
            report.findings.append(TighteningFinding(kind: .unnecessary, keyPath: path, appValue: "present", neededValue: "absent",
                                                     message: finding.saysATSIgnoresIt ? finding.message : "ATS ignores it: \(finding.message)"))
        }
        let domainsKey = ATSKey.exceptionDomains.name
        for (key, value) in ats.sorted(by: { $0.key < $1.key }) where key != domainsKey && key != ATSKey.pinnedDomains.name {
            if let finding = ignored([key: value], rules: ignoredKeyRules) {
                ats.removeValue(forKey: key)
                drop(root + "." + key, finding)
            }
        }
        if var domains = ats[domainsKey]?.dictionaryValue {
            for (name, value) in domains.sorted(by: { $0.key < $1.key }) {
                let path = domainsPath + "." + UntrustedText.escape(name, limit: 255)
                guard var entry = value.dictionaryValue else { continue }
                if !governing.contains(name), let finding = ignored([domainsKey: [name: .dictionary(entry)]], rules: ignoredEntryRules) {
                    domains.removeValue(forKey: name)
                    drop(path, finding)
                    report.notes.removeAll { $0.entryKey == name }
                    continue
                }
                for (key, keyValue) in entry.sorted(by: { $0.key < $1.key }) {
                    if let finding = ignored([domainsKey: [name: [key: keyValue]]], rules: ignoredKeyRules) {
                        entry.removeValue(forKey: key)
                        drop(path + "." + key, finding)
                    }
                }
                domains[name] = .dictionary(entry)
            }
            if domains.isEmpty { ats.removeValue(forKey: domainsKey) } else { ats[domainsKey] = .dictionary(domains) }
        }
        // An NSPinnedDomains key the pin lookup never finds (`DomainKeys`: a trailing dot) pins no
        // load: removing it changes none.
        let pinsKey = ATSKey.pinnedDomains.name
        if var pinned = ats[pinsKey]?.dictionaryValue {
            for (name, value) in pinned.sorted(by: { $0.key < $1.key }) {
                if let finding = ignored([pinsKey: [name: value]], rules: ignoredEntryRules) {
                    pinned.removeValue(forKey: name)
                    drop(root + "." + pinsKey + "." + UntrustedText.escape(name, limit: 255), finding)
                }
            }
            if pinned.isEmpty { ats.removeValue(forKey: pinsKey) } else { ats[pinsKey] = .dictionary(pinned) }
        }
        report.tightened = ats
    }
}

/// One comparison: groups hosts by what governs them, then decides key by key.
struct TighteningPass {
    let ats: [String: PropertyListValue]
    let configuration: ATSConfiguration
    let ruleSet: RuleSet
    var findings: [TighteningFinding] = []
    var notes: [TighteningNote] = []
    var tightened: [String: PropertyListValue]
    /// The raw NSExceptionDomains, edited; written back only when changed.
    var domains: [String: PropertyListValue]
    var domainsChanged = false
    /// The NSExceptionDomains keys that govern a checked host (`DomainKeys`).
    var governing: Set<String> = []

    init(ats: [String: PropertyListValue], ruleSet: RuleSet) {
        self.ats = ats
        self.configuration = ATSConfiguration(propertyList: ats)
        self.ruleSet = ruleSet
        self.tightened = ats
        self.domains = ats[ATSKey.exceptionDomains.name]?.dictionaryValue ?? [:]
    }

    mutating func run(_ needs: [HostNeed]) {
        var byEntry: [String: [HostNeed]] = [:]
        var arbitrary: [HostNeed] = []
        var unprotected: [HostNeed] = []
        var exempt: [HostNeed] = []
        for need in needs {
            let policy = EffectivePolicy(configuration: configuration, host: need.host, ruleSet: ruleSet)
            if let match = policy.match, match.isBuiltIn {
                // Not the app's entry: nothing in the dictionary to tighten (SecProtocolConfiguration.m
                // registers it for every app; docs/rules.md, "Configuration semantics").
                notes.append(.builtInException(host: need.host, key: match.key))
                continue
            }
            if let match = policy.match {
                byEntry[match.key, default: []].append(need)
                governing.insert(match.key)
                continue
            }
            switch policy.exemption {
            case .arbitraryLoads?: arbitrary.append(need)
            case .localNetworking?:
                notes.append(.localNetworkingExempt(host: need.host))
                exempt.append(need)
            case .ipAddressBeforeIOS17?:
                notes.append(.ipAddressExempt(host: need.host, ruleSet: ruleSet.id))
                exempt.append(need)
            case nil: unprotected.append(need)
            }
        }

        let arbitraryStays = decideArbitraryLoads(arbitrary)
        for (key, hosts) in byEntry.sorted(by: { $0.key < $1.key }) {
            tightenEntry(key, hosts: hosts, arbitraryStays: arbitraryStays)
        }
        for key in configuration.exceptionDomains.keys.sorted() where byEntry[key] == nil {
            notes.append(.entryUnused(key: key))
        }
        // Hosts under default ATS that fail for want of an exception get the minimal entry.
        for need in unique(unprotected) where !need.appLoadPasses {
            guard let entry = minimalEntry(need.requirement) else { continue }
            addEntry(for: need.host, entry, kind: .insufficient,
                     message: "the load of \(esc(need.host)) fails under default ATS; this is the minimal entry it needs")
        }
        // Pins that match no certificate the host serves fail every load, whatever the exception
        // entries: the tightened dictionary leaves them out and says so (pin what the server
        // serves with `atsprobe pins`), so it loads what the app loads.
        for need in unique(needs) where need.pinsFail {
            for key in configuration.pinnedDomain(host: need.host)?.keys ?? [] {
                guard var pinned = tightened[ATSKey.pinnedDomains.name]?.dictionaryValue, pinned.removeValue(forKey: key) != nil else { continue }
                tightened[ATSKey.pinnedDomains.name] = pinned.isEmpty ? nil : .dictionary(pinned)
                findings.append(TighteningFinding(kind: .insufficient, keyPath: ExceptionTightener.root + "." + ATSKey.pinnedDomains.name + "." + esc(key),
                    appValue: "entry", neededValue: "absent",
                    message: "its pins match no certificate \(esc(need.host)) serves, so every load fails pinning; pin what the server serves "
                        + "(atsprobe pins) or leave the entry out"))
            }
        }

        // A host ATS exempts still fails when the platform itself refuses the server (iOS 26
        // offers no TLS 1.0/1.1 with ATS off): an entry of its own sets the minimum (an entry
        // overrides the exemption, EffectivePolicy), so the tightened dictionary loads it.
        for need in unique(exempt) where !need.appLoadPasses {
            guard let entry = minimalEntry(need.requirement) else { continue }
            addEntry(for: need.host, entry, kind: .insufficient,
                     message: "the load of \(esc(need.host)) fails although ATS does not apply: the platform's own defaults refuse the server; "
                        + "this is the minimal entry it needs")
        }
        if domainsChanged {
            if domains.isEmpty {
                tightened.removeValue(forKey: ATSKey.exceptionDomains.name)
            } else {
                tightened[ATSKey.exceptionDomains.name] = .dictionary(domains)
            }
        }
    }

    // MARK: NSAllowsArbitraryLoads

    /// Removes NSAllowsArbitraryLoads when every host it governs is decided; true when it stays.
    mutating func decideArbitraryLoads(_ governed: [HostNeed]) -> Bool {
        guard configuration.effectiveAllowsArbitraryLoads else { return false }
        let key = ATSKey.allowsArbitraryLoads.name
        let undecided = governed.filter { if case .undecided = $0.requirement { true } else { false } }
        if !undecided.isEmpty {
            notes.append(.arbitraryLoadsUndecided(hosts: unique(undecided).map(\.host)))
            return true
        }
        tightened.removeValue(forKey: key)
        let path = ExceptionTightener.root + "." + key
        let needing = unique(governed).filter { minimalEntry($0.requirement) != nil }
        if governed.isEmpty {
            findings.append(TighteningFinding(kind: .unnecessary, keyPath: path, appValue: "true", neededValue: "absent",
                message: "no checked host relies on it: each has its own NSExceptionDomains entry"))
        } else if needing.isEmpty {
            findings.append(TighteningFinding(kind: .unnecessary, keyPath: path, appValue: "true", neededValue: "absent",
                message: "it turns ATS off for every host, but \(list(governed)) pass\(governed.count == 1 ? "es" : "") default ATS"))
        } else {
            let what = needing.map { "\(esc($0.host)) needs \(describe(minimalEntry($0.requirement)!))" }.joined(separator: "; ")
            findings.append(TighteningFinding(kind: .tooWide, keyPath: path, appValue: "true", neededValue: "absent",
                message: "it turns ATS off for every host, while only this is needed: \(what)"))
            for need in needing {
                addEntry(for: need.host, minimalEntry(need.requirement)!, kind: .tooWide,
                         message: "replaces NSAllowsArbitraryLoads for \(esc(need.host))")
            }
        }
        return false
    }

    // MARK: Exception entries

    mutating func tightenEntry(_ key: String, hosts: [HostNeed], arbitraryStays: Bool) {
        let path = ExceptionTightener.domainsPath + "." + esc(key)
        guard let need = EntryNeed(combining: hosts.map(\.requirement)) else {
            let undecided = hosts.filter { if case .undecided = $0.requirement { true } else { false } }
            notes.append(.entryUndecided(key: key, hosts: unique(undecided).map(\.host)))
            return
        }
        let app = configuration.exceptionDomains[key] ?? DomainException()
        let loadFailed = hosts.contains { !$0.appLoadPasses }
        let who = list(hosts)
        var entry = app
        var changed = false
        func report(_ kind: TighteningFinding.Kind, _ name: ATSKey, _ appValue: String, _ neededValue: String, _ message: String) {
            findings.append(TighteningFinding(kind: kind, keyPath: path + "." + name.name, appValue: appValue,
                                              neededValue: neededValue, message: message))
            changed = true
        }

        // A key stricter than needed stays unless the load fails; a weaker one is tightened.
        if app.allowsInsecureHTTPLoads && !need.insecureHTTP {
            entry.allowsInsecureHTTPLoads = false
            report(.unnecessary, .exceptionAllowsInsecureHTTPLoads, "true", "absent",
                   "\(who) load\(hosts.count == 1 ? "s" : "") over https with ATS required; insecure HTTP is not needed")
        } else if !app.allowsInsecureHTTPLoads && need.insecureHTTP && loadFailed {
            entry.allowsInsecureHTTPLoads = true
            report(.insufficient, .exceptionAllowsInsecureHTTPLoads, "absent", "true", "\(who) need\(hosts.count == 1 ? "s" : "") insecure HTTP loads")
        }

        if let needed = need.minimum {
            let appMinimum = app.effectiveMinimumTLSVersion
            let value = needed == .tls12 ? "absent" : needed.plistName
            if appMinimum < needed {
                entry.minimumTLSVersion = needed == .tls12 ? nil : needed.plistName
                report(needed == .tls12 ? .unnecessary : .tooWide, .exceptionMinimumTLSVersion, app.minimumTLSVersion.map(esc) ?? "absent", value,
                       "\(who) load\(hosts.count == 1 ? "s" : "") with \(needed) as the minimum; \(appMinimum) is not needed")
            } else if appMinimum > needed && loadFailed {
                entry.minimumTLSVersion = needed == .tls12 ? nil : needed.plistName
                report(.insufficient, .exceptionMinimumTLSVersion, app.minimumTLSVersion.map(esc) ?? "absent", value,
                       "\(who) need\(hosts.count == 1 ? "s" : "") \(needed) as the minimum; \(appMinimum) fails")
            }
        }

        if let needed = need.forwardSecrecyOff {
            let appOff = !app.effectiveRequiresForwardSecrecy
            if appOff && !needed {
                entry.requiresForwardSecrecy = nil
                report(.unnecessary, .exceptionRequiresForwardSecrecy, "false", "absent",
                       "\(who) negotiate\(hosts.count == 1 ? "s" : "") a forward-secret suite; the exception is not needed")
            } else if !appOff && needed && loadFailed {
                entry.requiresForwardSecrecy = false
                report(.insufficient, .exceptionRequiresForwardSecrecy, app.requiresForwardSecrecy.map(String.init) ?? "absent", "false",
                       "\(who) need\(hosts.count == 1 ? "s" : "") non-forward-secret suites")
            }
        }

        // NSRequiresCertificateTransparency stays while it fails no load; where it is what fails
        // one (a root that does not require CT, a chain without qualifying SCTs), it goes
        // (KeyJudgement: the same reading check, explain and lint give).
        var dropsCertificateTransparency = false
        if app.requiresCertificateTransparency == true, hosts.contains(where: \.certificateTransparencyKeyFails) {
            entry.requiresCertificateTransparency = nil
            dropsCertificateTransparency = true
            let failing = hosts.filter(\.certificateTransparencyKeyFails)
            report(.insufficient, .requiresCertificateTransparency, "true", "absent",
                   "the load\(failing.count == 1 ? "" : "s") of \(list(failing)) fail\(failing.count == 1 ? "s" : "") Certificate Transparency only because "
                    + "of this key: the chain ends at a root that does not require CT (user-installed, or an app's anchor) and carries no "
                    + "qualifying SCTs")
        }

        // An entry that weakens nothing is dropped once NSAllowsArbitraryLoads is gone (beside it,
        // an empty entry restores default ATS for the domain, so it stays).
        let weakens = entry.allowsInsecureHTTPLoads || entry.effectiveMinimumTLSVersion < .tls12 || !entry.effectiveRequiresForwardSecrecy
        let strengthens = entry.effectiveMinimumTLSVersion > .tls12 || entry.requiresNIAPTLSPackageVersion != nil
            || entry.requiresCertificateTransparency == true
        if !weakens && !strengthens && !arbitraryStays {
            if !changed {
                findings.append(TighteningFinding(kind: .unnecessary, keyPath: path, appValue: "entry", neededValue: "absent",
                    message: "the entry changes nothing \(who) need\(hosts.count == 1 ? "s" : ""): default ATS passes"))
            }
            domains.removeValue(forKey: key)
            domainsChanged = true
        } else {
            if changed {
                var raw = domains[key]?.dictionaryValue ?? [:]
                if dropsCertificateTransparency { raw.removeValue(forKey: ATSKey.requiresCertificateTransparency.name) }
                domains[key] = .dictionary(rewrite(raw, as: entry))
                domainsChanged = true
            }
            pinSubdomains(hosts, under: key, entry: entry)
        }
    }

    /// A host the entry reaches only under Apple's code (more than one label down) fails under
    /// the documentation's reading; an entry of its own holds under both.
    mutating func pinSubdomains(_ hosts: [HostNeed], under key: String, entry: DomainException) {
        for need in unique(hosts) where !need.appLoadPasses {
            guard let disagreement = configuration.subdomainDisagreement(host: need.host, ruleSet: ruleSet),
                  disagreement.anyDepth?.key == key, domains[DomainKeys.key(for: need.host, in: .exceptionDomains)] == nil else { continue }
            let own = DomainException(allowsInsecureHTTPLoads: entry.allowsInsecureHTTPLoads, minimumTLSVersion: entry.minimumTLSVersion,
                                      requiresForwardSecrecy: entry.requiresForwardSecrecy)
            addEntry(for: need.host, own, kind: .insufficient,
                     message: "Apple's documentation reads NSIncludesSubdomains as one label, so \"\(esc(key))\" may not cover "
                        + "\(esc(need.host)); an entry of its own holds under both readings")
        }
    }

    /// The raw entry with its three weakening keys (and their deprecated names) set from `entry`;
    /// other keys stay as written.
    func rewrite(_ raw: [String: PropertyListValue], as entry: DomainException) -> [String: PropertyListValue] {
        var dict = raw
        let names: [ATSKey] = [
            .exceptionAllowsInsecureHTTPLoads, .thirdPartyExceptionAllowsInsecureHTTPLoads, .temporaryExceptionAllowsInsecureHTTPLoads,
            .exceptionMinimumTLSVersion, .thirdPartyExceptionMinimumTLSVersion, .temporaryExceptionMinimumTLSVersion,
            .exceptionRequiresForwardSecrecy, .thirdPartyExceptionRequiresForwardSecrecy, .temporaryExceptionRequiresForwardSecrecy,
        ]
        for name in names { dict.removeValue(forKey: name.name) }
        if entry.allowsInsecureHTTPLoads { dict[ATSKey.exceptionAllowsInsecureHTTPLoads.name] = true }
        if let minimum = entry.minimumTLSVersion { dict[ATSKey.exceptionMinimumTLSVersion.name] = .string(minimum) }
        if let fs = entry.requiresForwardSecrecy { dict[ATSKey.exceptionRequiresForwardSecrecy.name] = .boolean(fs) }
        return dict
    }

    mutating func addEntry(for host: String, _ entry: DomainException, kind: TighteningFinding.Kind, message: String) {
        let key = DomainKeys.key(for: host, in: .exceptionDomains)
        domains[key] = .dictionary(entry.propertyList)
        domainsChanged = true
        findings.append(TighteningFinding(kind: kind, keyPath: ExceptionTightener.domainsPath + "." + esc(key), appValue: "absent",
                                          neededValue: describe(entry), message: message))
    }

    // MARK: Helpers

    /// The entry a requirement calls for, nil when it needs none (or is undecided).
    func minimalEntry(_ requirement: HostNeed.Requirement) -> DomainException? {
        switch requirement {
        case .nothing, .undecided: nil
        case .exception(let exception): exception
        case .cleartext: DomainException(allowsInsecureHTTPLoads: true)
        }
    }

    func describe(_ entry: DomainException) -> String {
        var parts: [String] = []
        if let minimum = entry.minimumTLSVersion { parts.append("\(ATSKey.exceptionMinimumTLSVersion.name) = \(minimum)") }
        if entry.requiresForwardSecrecy == false { parts.append("\(ATSKey.exceptionRequiresForwardSecrecy.name) = false") }
        if entry.allowsInsecureHTTPLoads { parts.append("\(ATSKey.exceptionAllowsInsecureHTTPLoads.name) = true") }
        return parts.isEmpty ? "an empty entry" : parts.joined(separator: ", ")
    }

    func unique(_ needs: [HostNeed]) -> [HostNeed] {
        var seen = Set<String>()
        return needs.filter { seen.insert(DomainKeys.key(for: $0.host, in: .exceptionDomains)).inserted }
    }

    func list(_ needs: [HostNeed]) -> String {
        unique(needs).map { esc($0.host) }.joined(separator: ", ")
    }

    func esc(_ text: String) -> String { UntrustedText.escape(text, limit: 255) }
}

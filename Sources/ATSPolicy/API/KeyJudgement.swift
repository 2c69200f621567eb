import PropertyList
import TextSupport
import TLSFacts

/// What the keys of an app's NSAppTransportSecurity dictionary mean for one host: the one
/// judgement that `plist explain` (the prediction, no connection), `plist check` and `app` (the
/// observation), `plist lint` (findings), the tightener and the exception advisor all ask, so
/// no two of them can read a key two ways (issue 32, item 2).
///
/// Local networking, IP addresses, built-in exceptions, pins and minimum versions are decided by
/// `EffectivePolicy` (which every command builds for a host); the values Apple's reader ignores
/// by `ATSValueReading`. This type adds what neither says alone: what
/// NSRequiresCertificateTransparency does for a chain's root, near-miss keys (`NSIncludesSubdomain`)
/// with the entry they would cover once renamed, and the notes every command prints beside its
/// verdict (`notes(configuration:host:match:ruleSet:)`, through `EffectivePolicy.notes`).
public enum KeyJudgement {
    // MARK: Certificate Transparency

    /// Which chains must meet Apple's CT policy for a host.
    ///
    /// Sources: Security-61901 `trust/trustd/SecPolicyServer.c` (`SecPolicyCheckCTRequired`,
    /// `SecPVCCheckRequireCTConstraints`: CT is enforced for chains to roots Apple marks CT-required,
    /// the system's public roots) and the App Transport Security reference for
    /// NSRequiresCertificateTransparency ("requires valid, signed Certificate Transparency timestamps
    /// ... for a server's certificate"): the key asks CT of every chain, whatever its root. atsprobe's
    /// certificate rules follow the same two inputs (`CTPolicy.evaluate`: anchor `.system`, or
    /// `requireCertificateTransparency`).
    public enum CertificateTransparencyScope: String, Sendable, Hashable, Codable {
        /// Only chains to Apple's CT-required (public) roots: default trust evaluation.
        case ctRequiredRoots
        /// Every chain, to a user-installed root or an app's own anchor too: the entry sets
        /// NSRequiresCertificateTransparency.
        case everyRoot
    }

    /// What NSRequiresCertificateTransparency does for one load, once the chain's root is known.
    public enum CertificateTransparencyKeyEffect: String, Sendable, Hashable, Codable {
        /// The entry does not set the key (or sets it NO, or to a value Apple ignores).
        case absent
        /// The chain ends at a CT-required root: CT is required anyway, the key changes nothing.
        case redundant
        /// The chain ends at a user-installed root, an app's anchor or no root: the key is what
        /// makes CT required.
        case requiresCertificateTransparency
    }

    /// The prediction: which chains need CT for this host under the dictionary.
    public static func certificateTransparencyScope(_ policy: EffectivePolicy) -> CertificateTransparencyScope {
        policy.requiresCertificateTransparency ? .everyRoot : .ctRequiredRoots
    }

    /// The observation: what the key did for a chain that ended at `anchor`.
    public static func certificateTransparencyKey(_ policy: EffectivePolicy, anchor: AnchorSource?) -> CertificateTransparencyKeyEffect {
        guard policy.requiresCertificateTransparency else { return .absent }
        return anchor == .system ? .redundant : .requiresCertificateTransparency
    }

    /// The load failed Apple's CT policy.
    public static func failedCertificateTransparency(_ verdict: Verdict) -> Bool {
        verdict.reasons.contains { $0.kind == .certificateRule(.certificateTransparency) }
    }

    /// NSRequiresCertificateTransparency is what failed the load: the key made CT required for a
    /// chain whose root does not require it, and the chain did not meet the policy. Without the
    /// key the CT failure is gone (the rest of the verdict is the load's own).
    public static func certificateTransparencyKeyFailsLoad(_ policy: EffectivePolicy, anchor: AnchorSource?, verdict: Verdict) -> Bool {
        certificateTransparencyKey(policy, anchor: anchor) == .requiresCertificateTransparency && failedCertificateTransparency(verdict)
    }

    /// One sentence on the CT requirement, for `plist explain` and the notes.
    public static func certificateTransparencySentence(_ scope: CertificateTransparencyScope) -> String {
        switch scope {
        case .ctRequiredRoots:
            "required for chains to Apple's CT-required (public) roots (default trust evaluation, every dictionary); "
                + "not for a user-installed root or an app's own anchor"
        case .everyRoot:
            "required for every chain: NSRequiresCertificateTransparency makes chains to a user-installed root or an app's own anchor "
                + "need SCTs from Apple's approved logs too (chains to Apple's CT-required roots need them anyway)"
        }
    }

    /// One sentence on what the key did for an observed load (`plist check`, `app`); nil when absent.
    public static func certificateTransparencyKeySentence(_ effect: CertificateTransparencyKeyEffect, failsLoad: Bool) -> String? {
        switch effect {
        case .absent: nil
        case .redundant:
            "NSRequiresCertificateTransparency changes nothing here: the chain ends at a CT-required root, which requires CT anyway"
        case .requiresCertificateTransparency where failsLoad:
            "NSRequiresCertificateTransparency fails this load: it makes CT required for a chain whose root does not require it "
                + "(a user-installed root or an app's anchor), and the chain carries no qualifying SCTs; the tightened dictionary drops the key"
        case .requiresCertificateTransparency:
            "NSRequiresCertificateTransparency makes CT required for this chain, whose root does not require it; the chain meets Apple's CT policy"
        }
    }

    /// What `plist lint` says of NSRequiresCertificateTransparency = YES, without knowing the root.
    public static let certificateTransparencyKeyFinding =
        "NSRequiresCertificateTransparency changes nothing for chains to Apple's CT-required (public) roots, which need CT anyway; "
        + "for a user-installed root or an app's own anchor it makes CT required, and a load whose certificate carries no SCTs "
        + "from Apple's approved logs then fails"
    public static let certificateTransparencyKeyFix =
        "remove the key unless the server's private CA embeds SCTs from Apple's approved logs"

    // MARK: Pins

    /// The load failed pinning: the NSPinnedDomains entries that apply to the host match no
    /// certificate of the served chain (Security `OSX/sec/Security/SecPolicy.c`,
    /// `parseNSPinnedDomains`; `PinningPolicy`), so no exception entry makes it load.
    public static func failedPinning(_ verdict: Verdict) -> Bool {
        verdict.reasons.contains { $0.kind == .pinMismatch }
    }

    // MARK: Exemptions the app takes away

    /// The app's dictionary puts the host under ATS where nscurl's default dictionary (no keys)
    /// leaves it out: NSAllowsLocalNetworking = NO for a local name or loopback address
    /// (`EffectivePolicy`, SecProtocolConfiguration.m's `is_direct` rule), with or without an
    /// entry for the host (removing the entry would not give the exemption back). nscurl's "ATS
    /// Default Connection" then says nothing of the app's load, and the exception advisor must
    /// judge the host by the tests that give it an entry (`ExceptionAdvisor.suggest(under:...)`).
    public static func takesAwayDefaultExemption(_ policy: EffectivePolicy, ruleSet: RuleSet) -> Bool {
        guard policy.exemption == nil, policy.exemptionWithoutEntry == nil else { return false }
        return EffectivePolicy(configuration: .default, host: policy.host, scheme: policy.scheme, ruleSet: ruleSet).exemption != nil
    }

    // MARK: Near misses

    /// A key ATS does not know that is one or two edits from one it does (`NSIncludesSubdomain`):
    /// ATS ignores it as written; renamed, it does what its author meant.
    public struct NearMiss: Sendable, Hashable {
        /// The NSExceptionDomains or NSPinnedDomains key the misspelling sits in; nil for a global key.
        public var entry: String?
        public var scope: ATSKey.Scope
        /// As written.
        public var key: String
        /// The key it is one or two edits from.
        public var intended: String
    }

    /// The key of `scope` that `key` most likely means, when `key` is unknown there and close to
    /// one (`KeySuggestion`): what lint offers as a rename and the notes name.
    public static func intendedKey(for key: String, in scope: ATSKey.Scope) -> String? {
        guard ATSKey.named(key, in: scope) == nil, !ATSKey.all.contains(where: { $0.name == key }) else { return nil }
        return KeySuggestion.nearest(to: key, among: ATSKey.keys(in: scope).map(\.name))
    }

    /// Every near miss of the dictionary as written: global keys and the keys of each
    /// NSExceptionDomains and NSPinnedDomains entry, sorted.
    public static func nearMisses(_ ats: [String: PropertyListValue]) -> [NearMiss] {
        var misses: [NearMiss] = []
        for key in ats.keys.sorted() {
            if let intended = intendedKey(for: key, in: .global) {
                misses.append(NearMiss(entry: nil, scope: .global, key: key, intended: intended))
            }
        }
        let tables: [(ATSKey, ATSKey.Scope)] = [(.exceptionDomains, .exceptionDomain), (.pinnedDomains, .pinnedDomain)]
        for (table, scope) in tables {
            for (entry, value) in (ats[table.name]?.dictionaryValue ?? [:]).sorted(by: { $0.key < $1.key }) {
                for key in (value.dictionaryValue ?? [:]).keys.sorted() {
                    if let intended = intendedKey(for: key, in: scope) {
                        misses.append(NearMiss(entry: entry, scope: scope, key: key, intended: intended))
                    }
                }
            }
        }
        return misses
    }

    /// The dictionary with the near miss renamed to the key it means.
    public static func renaming(_ miss: NearMiss, in ats: [String: PropertyListValue]) -> [String: PropertyListValue] {
        var ats = ats
        func rename(_ dict: inout [String: PropertyListValue]) {
            guard let value = dict.removeValue(forKey: miss.key) else { return }
            if dict[miss.intended] == nil { dict[miss.intended] = value }
        }
        guard let entry = miss.entry else {
            rename(&ats)
            return ats
        }
        let table = miss.scope == .pinnedDomain ? ATSKey.pinnedDomains.name : ATSKey.exceptionDomains.name
        guard var entries = ats[table]?.dictionaryValue, var dict = entries[entry]?.dictionaryValue else { return ats }
        rename(&dict)
        entries[entry] = .dictionary(dict)
        ats[table] = .dictionary(entries)
        return ats
    }

    /// Whether renaming `miss` makes its NSExceptionDomains entry govern `host`, where as written
    /// it does not (`NSIncludesSubdomain` on the parent of the host): the entry it would cover.
    public static func renameWouldCover(_ miss: NearMiss, host: String, in ats: [String: PropertyListValue],
                                        ruleSet: RuleSet) -> Bool {
        guard miss.scope == .exceptionDomain, let entry = miss.entry else { return false }
        let asWritten = ATSConfiguration(propertyList: ats).match(host: host, reading: .anyDepth, ruleSet: ruleSet)
        guard asWritten?.key != entry else { return false }
        let renamed = ATSConfiguration(propertyList: renaming(miss, in: ats)).match(host: host, reading: .anyDepth, ruleSet: ruleSet)
        return renamed?.key == entry && renamed?.isBuiltIn == false
    }

    // MARK: Keys the lookup never finds

    /// A key `DomainKeys.unmatchable` says the lookup misses, where the key as it should be
    /// written would apply to `host`: the entry a rename would make govern the host (the same
    /// finding `plist lint` reports as domain-uppercase or domain-trailing-dot, with the rename).
    static func unmatchableKeyNotes(_ ats: [String: PropertyListValue], host: String, match: DomainMatch?,
                                    ruleSet: RuleSet) -> [String] {
        var notes: [String] = []
        let tables: [(ATSKey, DomainKeys.Table)] = [(.exceptionDomains, .exceptionDomains), (.pinnedDomains, .pinnedDomains)]
        for (table, kind) in tables {
            guard let entries = ats[table.name]?.dictionaryValue else { continue }
            for key in entries.keys.sorted() {
                guard let miss = DomainKeys.unmatchable(key, in: kind), entries[miss.rename] == nil, let value = entries[key] else { continue }
                var renamedEntries = entries
                renamedEntries.removeValue(forKey: key)
                renamedEntries[miss.rename] = value
                var renamed = ats
                renamed[table.name] = .dictionary(renamedEntries)
                let configuration = ATSConfiguration(propertyList: renamed)
                let wouldApply: Bool = switch kind {
                case .exceptionDomains: match?.key != key
                    && configuration.match(host: host, reading: .anyDepth, ruleSet: ruleSet).map { $0.key == miss.rename && !$0.isBuiltIn } == true
                case .pinnedDomains: configuration.pinnedDomain(host: host)?.keys.contains(miss.rename) == true
                }
                guard wouldApply else { continue }
                let why = miss.reasons.contains(.upperCase)
                    ? "ATS looks the host up exactly as written, and URL hosts are lower case"
                    : kind == .exceptionDomains ? "ATS looks the host up exactly as written, trailing dot included"
                    : "the pin lookup removes the host's trailing dot first"
                notes.append("the \(table.name) key \"\(key)\" does not apply to \(host): \(why); renamed to \"\(miss.rename)\", it would")
            }
        }
        return notes
    }

    // MARK: Notes

    /// What the dictionary as written means for `host` beyond the verdict: the CT key of the
    /// governing entry, values Apple's reader ignores or reads as something else
    /// (`ATSValueReading.valueNotes`), and near-miss keys (with the entry a rename would make
    /// govern the host). Empty without the written dictionary (a configuration built in code).
    /// Not escaped: each renderer escapes for its sink.
    public static func notes(configuration: ATSConfiguration, host: String, match: DomainMatch?, ruleSet: RuleSet) -> [String] {
        var notes: [String] = []
        let appEntry = match.flatMap { $0.isBuiltIn ? nil : $0.key }
        if let appEntry, match?.exception.requiresCertificateTransparency == true {
            notes.append("NSRequiresCertificateTransparency in the entry \"\(appEntry)\": CT is "
                + certificateTransparencySentence(.everyRoot))
        }
        guard let ats = configuration.written else { return notes }
        notes += ATSValueReading.valueNotes(ats, entryKey: appEntry)
        notes += unmatchableKeyNotes(ats, host: host, match: match, ruleSet: ruleSet)
        for miss in nearMisses(ats) {
            let place = miss.entry.map { " in the entry \"\($0)\"" } ?? ""
            let table = miss.scope == .pinnedDomain ? ATSKey.pinnedDomains.name : ATSKey.exceptionDomains.name
            if renameWouldCover(miss, host: host, in: ats, ruleSet: ruleSet), let entry = miss.entry {
                notes.append("\(miss.key)\(place) is not a key ATS reads (did you mean \(miss.intended)?): as written the entry "
                    + "\"\(entry)\" does not cover \(host); renamed to \(miss.intended), it would")
            } else if miss.entry == nil || miss.entry == appEntry
                        || (miss.scope == .pinnedDomain && configuration.pinnedDomain(host: host)?.keys.contains(miss.entry ?? "") == true) {
                let owner = miss.entry == nil ? "NSAppTransportSecurity" : "the \(table) entry \"\(miss.entry!)\""
                notes.append("\(miss.key)\(place) is not a key ATS reads (did you mean \(miss.intended)?): ATS ignores it, so \(owner) "
                    + "applies without it; rename it to \(miss.intended)")
            }
        }
        return notes
    }
}

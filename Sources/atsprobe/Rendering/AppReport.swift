import ATSApp
import ATSEngine
import ATSAdvice
import ATSPolicy
import PropertyList
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport
import TLSFacts

/// Everything `atsprobe app` found and measured, rendered as text, JSON, Markdown or a plist.
struct AppReport {
    /// One host's load under its bundle's dictionary: `plist check`'s machinery, unchanged.
    struct HostCheck {
        var host: FoundHost
        var check: PlistTargetCheck
    }

    /// A bundle with a dictionary of its own (the app, an extension, a nested app) and what
    /// the live check says of it. Frameworks have none: their hosts count for their owner.
    struct DictionaryResult {
        var bundle: AppBundle
        var checks: [HostCheck]
        /// nil when no host was checked under it: nothing measured, nothing to tighten.
        var tightening: TighteningReport?
        var tightenedPlist: String?
        /// NSExceptionDomains entries that no checked host falls under (either reading).
        var unusedEntries: [String]
    }

    var inventory: AppInventory
    /// nil with --offline.
    var ruleSet: RuleSet?
    var results: [DictionaryResult]

    var checks: [HostCheck] { results.flatMap(\.checks) }
    var offline: Bool { ruleSet == nil }

    /// 2 a host unreachable; 1 a load fails or a dictionary is wider than needed; 0 otherwise,
    /// as `plist check`. Offline: 1 for a lint finding at warning or above, as `plist lint`.
    var exitStatus: ExitStatus {
        if offline {
            return inventory.bundles.contains { LintFailOn.warning.fails($0.lint) } ? .findings : .clear
        }
        if checks.contains(where: \.check.unreachable) { return .unreachable }
        if checks.contains(where: { !$0.check.passes }) || results.contains(where: { $0.tightening?.isTight == false }) { return .findings }
        return .clear
    }

    /// A generated property list for a terminal or a page: keys come from the app, so each line
    /// is escaped (control and bidi characters); tabs, which the escape would show as \x09,
    /// become four spaces first.
    static func escapedLines(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { UntrustedText.escape(String($0).replacing("\t", with: "    "), limit: 4096) }.joined(separator: "\n")
    }

    /// The bundle's name for people: "Demo.app" for the app itself.
    func name(_ path: String) -> String { path.isEmpty ? inventory.appName : path }

    /// The dictionary column of the Markdown and HTML reports: whose dictionary governs the
    /// bundle's loads (`borrowed` words the owner's name), the keys of its own, or the defaults.
    /// The formats differ only in how they escape a name and mark up a key.
    func dictionaryCell(_ bundle: AppBundle, borrowed: (String) -> String, key: (String) -> String) -> String {
        if bundle.dictionaryOwner != bundle.path { return borrowed(name(bundle.dictionaryOwner)) }
        guard let ats = bundle.atsDictionary else { return "none (ATS defaults)" }
        return ats.isEmpty ? "empty" : ats.keys.sorted().map(key).joined(separator: ", ")
    }

    /// The loads that fail or do not connect: "Will fail" in every format.
    var failing: [HostCheck] { checks.filter { !$0.check.passes || $0.check.unreachable } }

    /// The dictionaries the live check tightens, with the tightened property list, in bundle order.
    var tightenedDictionaries: [(result: DictionaryResult, plist: String)] {
        results.compactMap { result in
            guard let tightening = result.tightening, !tightening.isTight, let plist = result.tightenedPlist else { return nil }
            return (result, plist)
        }
    }

    /// The hosts that have server advice (`serverAdvice`), in check order.
    var hostsWithServerAdvice: [(item: HostCheck, advice: HostAdvice)] {
        checks.compactMap { item in Self.serverAdvice(item.check).map { (item, $0) } }
    }

    /// The items of "What no host needs", in report order: per bundle (given by its name) its
    /// tightening findings, then its entries no host falls under; each format words them.
    func unneededItems(finding: (String, TighteningFinding) -> String, entry: (String, String) -> String) -> [String] {
        results.flatMap { result in
            let bundle = name(result.bundle.path)
            return (result.tightening?.findings ?? []).map { finding(bundle, $0) } + result.unusedEntries.map { entry(bundle, $0) }
        }
    }

    /// The live check: every kept host loaded under the dictionary of the bundle that governs
    /// it, then each dictionary compared with what its hosts need.
    static func run(_ inventory: AppInventory, connection: ConnectionOptions, runner: DiagnosticsRunner,
                    ruleSet: RuleSet, progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }) async throws -> AppReport {
        var results: [DictionaryResult] = []
        var done = 0
        progress(0, inventory.hosts.count)
        for bundle in inventory.bundles where bundle.dictionaryOwner == bundle.path {
            let ats = bundle.atsDictionary ?? [:]
            let configuration = ATSConfiguration(propertyList: ats)
            let hosts = inventory.hosts.filter { $0.bundle == bundle.path }
            let targets = try hosts.map { try connection.target($0.target) }
            let loaded = await PlistTargetCheck.checkAll(targets, configuration: configuration, runner: runner) {
                done += 1
                progress(done, inventory.hosts.count)
            }
            let checks = zip(hosts, loaded).map { HostCheck(host: $0, check: $1) }
            var result = DictionaryResult(bundle: bundle, checks: checks, tightening: nil, tightenedPlist: nil, unusedEntries: [])
            if !checks.isEmpty {
                // A host no dictionary makes load has no say in the tightening: the dictionary is for
                // the hosts that can load (its server fix is in the report). `plist check` keeps
                // what covers it instead, because there the user chose each target.
                // An unreachable 443 guess for a host named only in the dictionary says nothing
                // about what the app needs: it never keeps a global opt-out (issue 25).
                func unreachableGuess(_ item: HostCheck) -> Bool { item.check.unreachable && item.host.isDictionaryGuess }
                let decidable = checks.filter { !$0.check.noDictionaryHelps && !unreachableGuess($0) }
                var tightening = ExceptionTightener.tighten(ats, needs: decidable.map(\.check.need), ruleSet: ruleSet)
                for check in checks where check.check.noDictionaryHelps {
                    tightening.notes.append("\(check.host.host): no dictionary makes it load; left out of the tightening (see its server fix)")
                }
                for check in checks where unreachableGuess(check) {
                    tightening.notes.append("\(check.host.host): named only in the dictionary and not reachable on port 443; left out of the tightening")
                }
                result.tightening = tightening
                result.tightenedPlist = try PlistCheckText.plist(tightening.tightened)
                let used = Set(checks.flatMap { $0.check.loads.compactMap(\.policy.match?.key) } + checks.compactMap(\.check.policy.match?.key))
                let entries = (ats[ATSKey.exceptionDomains.name]?.dictionaryValue ?? [:]).keys
                result.unusedEntries = entries.filter { !used.contains($0) }.sorted()
            }
            results.append(result)
        }
        return AppReport(inventory: inventory, ruleSet: ruleSet, results: results)
    }

    /// Offline: the bundles and hosts only.
    static func offline(_ inventory: AppInventory) -> AppReport {
        AppReport(inventory: inventory, ruleSet: nil, results: [])
    }

    /// What a failing load needs, in one line: the entry the tightened dictionary adds, or
    /// why no dictionary helps (the server must change).
    static func remedy(_ check: PlistTargetCheck) -> String {
        guard let report = check.diagnostics else {
            // An http:// load has no diagnostics: its own reasons say whether the host answered.
            if check.loads.flatMap(\.load.verdict.reasons).contains(where: { $0.layer == .connection }) {
                return "could not be reached over http://; nothing was measured"
            }
            return "an http:// load: NSExceptionAllowsInsecureHTTPLoads for the host (the tightened dictionary has it), or serve it over https"
        }
        if report.reachability == .unreachable { return "could not be reached; nothing was measured" }
        switch report.suggestion {
        case .none: return "default ATS passes: the app's dictionary is what breaks it (see the governing entry)"
        case .exception(let domain, _, _): return "the tightened dictionary adds the entry for \(UntrustedText.escape(domain))"
        case .impossible(let reason): return "no dictionary makes it load (\(UntrustedText.escape(reason))): only a server change can fix it"
        }
    }

    /// The server fixes for a host: what removes each exception it needs, or makes it loadable at all.
    static func serverAdvice(_ check: PlistTargetCheck) -> HostAdvice? {
        guard let report = check.diagnostics, report.reachability != .unreachable else { return nil }
        let advice = report.advice
        return advice.fixes.isEmpty && advice.impossibleReason == nil ? nil : advice
    }
}

extension PlistTargetCheck {
    /// The diagnostics say no ATS dictionary makes the host load (a trust failure, say).
    var noDictionaryHelps: Bool {
        guard let report = diagnostics, report.reachability != .unreachable else { return false }
        if case .impossible = report.suggestion { return true }
        return false
    }
}

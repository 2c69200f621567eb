import ATSAdvice
import ATSApp
import ATSPolicy
import PropertyList
import TextSupport
import TLSFacts

/// Everything `atsprobe app` found and measured: the inventory (ATSApp), each host's load
/// under its bundle's dictionary (`plist check`'s machinery, run by the scheduler), and each
/// dictionary compared with what its hosts need. CommandRuns writes it as the document every
/// format renders (ATSCommandOutputs' AppJSON); the executable picks the format.
package struct AppReport {
    /// One host's load under its bundle's dictionary: `plist check`'s machinery, unchanged.
    package struct HostCheck {
        package var host: FoundHost
        package var check: PlistTargetCheck
    }

    /// A bundle with a dictionary of its own (the app, an extension, a nested app) and what
    /// the live check says of it. Frameworks have none: their hosts count for their owner.
    package struct DictionaryResult {
        package var bundle: AppBundle
        package var checks: [HostCheck]
        /// nil when no host was checked under it: nothing measured, nothing to tighten.
        package var tightening: TighteningReport?
        package var tightenedPlist: String?
        /// NSExceptionDomains entries that no checked host falls under (either reading).
        package var unusedEntries: [String]
    }

    package var inventory: AppInventory
    /// nil with --offline.
    package var ruleSet: RuleSet?
    package var results: [DictionaryResult]

    package var checks: [HostCheck] { results.flatMap(\.checks) }
    package var offline: Bool { ruleSet == nil }

    /// Unreachable when a host is; findings when a load fails or a dictionary is wider than
    /// needed; clear otherwise, as `plist check`. Offline: findings for a lint finding at
    /// warning or above, as `plist lint`.
    package var severity: AuditSeverity {
        if offline {
            return inventory.bundles.contains { LintFailOn.warning.fails($0.lint) } ? .findings : .clear
        }
        if checks.contains(where: \.check.unreachable) { return .unreachable }
        if checks.contains(where: { !$0.check.passes }) || results.contains(where: { $0.tightening?.isTight == false }) { return .findings }
        return .clear
    }

    /// The live check: every kept host loaded under the dictionary of the bundle that governs
    /// it (a few hosts at a time, through the scheduler), then each dictionary compared with
    /// what its hosts need. `target` parses a host's target text (the command applies
    /// --connect-to); `progress` hears each finished host. Throws `TargetRunError` when this
    /// machine fails a load (out of descriptors, memory): no verdict can be drawn.
    package static func run(_ inventory: AppInventory, runner: DiagnosticsRunner, ruleSet: RuleSet,
                            target: (String) throws -> Target,
                            progress: @escaping @Sendable (_ done: Int, _ total: Int) -> Void = { _, _ in }) async throws -> AppReport {
        var results: [DictionaryResult] = []
        let total = inventory.hosts.count
        let done = Counter()
        progress(0, total)
        for bundle in inventory.bundles where bundle.dictionaryOwner == bundle.path {
            let ats = bundle.atsDictionary ?? [:]
            let configuration = ATSConfiguration(propertyList: ats)
            let hosts = inventory.hosts.filter { $0.bundle == bundle.path }
            let targets = try hosts.map { try target($0.target) }
            let scheduler = AuditScheduler(limits: .inOrder(),
                                           work: PlistCheckWork(configuration: configuration, runner: runner))
            let events = await scheduler.runInOrder(targets) { event in
                guard event.isResult else { return }
                progress(done.increment(), total)
            }
            let loaded = try TargetRunError.reports(of: events, targets: targets)
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
                    tightening.notes.append(.noDictionaryHelps(host: check.host.host))
                }
                for check in checks where unreachableGuess(check) {
                    tightening.notes.append(.unreachableGuess(host: check.host.host))
                }
                result.tightening = tightening
                result.tightenedPlist = try ATSConfiguration.infoPlistXML(tightening.tightened)
                let used = Set(checks.flatMap { $0.check.loads.compactMap(\.policy.match?.key) } + checks.compactMap(\.check.policy.match?.key))
                let entries = (ats[ATSKey.exceptionDomains.name]?.dictionaryValue ?? [:]).keys
                result.unusedEntries = entries.filter { !used.contains($0) }.sorted()
                // The tightener notes each entry no checked host falls under; "What no host
                // needs" lists these entries itself, so the note would say it a second time.
                let unused = Set(result.unusedEntries.map { TighteningNote.entryUnused(key: $0) })
                result.tightening?.notes.removeAll { unused.contains($0) }
            }
            results.append(result)
        }
        return AppReport(inventory: inventory, ruleSet: ruleSet, results: results)
    }

    /// Offline: the bundles and hosts only.
    package static func offline(_ inventory: AppInventory) -> AppReport {
        AppReport(inventory: inventory, ruleSet: nil, results: [])
    }
}

extension PlistTargetCheck {
    /// No ATS dictionary makes the host load (a trust failure, say): `suggestion`, the one answer.
    package var noDictionaryHelps: Bool {
        guard !unreachable, case .impossible? = suggestion else { return false }
        return true
    }
}

import ATSCommandOutputs
import ATSApp
import ATSEngine
import ATSFiles
import ATSPolicy
import ATSReport
import PropertyList
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import TextSupport
import TLSFacts

/// `atsprobe app PATH` once its options are parsed (docs/app.md): the app read into its
/// inventory, the bundles its options name found in it, and the live check of every host.
package enum AppRun {
    /// --max-entries within its bounds, and every --include and --exclude a host name pattern (else 64, naming it).
    package static func checkOptions(maxEntries: Int, include: [String], exclude: [String]) throws {
        guard maxEntries > 0, maxEntries <= 1_000_000 else { throw InputError(.badArgument, "--max-entries must be between 1 and 1000000, got \(maxEntries)") }
        for (option, patterns) in [("--include", include), ("--exclude", exclude)] {
            for pattern in patterns where !NoiseFilter.isValidPattern(pattern) {
                throw InputError(.badArgument, "\(option) '\(UntrustedText.escape(pattern, limit: 100))' is not a host name pattern (HOST, .DOMAIN or *.DOMAIN)")
            }
        }
    }

    /// --hosts-only FILE: the targets listed, parsed.
    package static func listedTargets(_ file: String) throws -> [Target] {
        try TargetList.read(file, option: "--hosts-only").map { text in
            do throws(TargetParseError) { return try Target(parsing: text) } catch { throw InputError(.badArgument, "--hosts-only: \(error.description)") }
        }
    }

    /// The app's bundles, dictionaries and hosts; a refused archive is bad input (64).
    package static func inventory(path: String, maxEntries: Int, include: [String], exclude: [String], hostsOnly: [Target]?) throws -> AppInventory {
        do throws(AppReadError) {
            return try AppScan.inventory(path: path, limits: ArchiveLimits(maximumEntries: maxEntries),
                                         filter: NoiseFilter(include: include, exclude: exclude), hostsOnly: hostsOnly)
        } catch {
            throw InputError(InputError.Code(error), error.description)
        }
    }

    /// The report, and the document every format renders with the run's metadata in it: offline,
    /// the inventory alone; else `check`'s, with the runner `runner` makes.
    package static func report(_ inventory: AppInventory, offline: Bool, context: RunContext, runner: () throws -> DiagnosticsRunner,
                               quiet: Bool, warn: (String) -> Void) async throws -> (AppReport, AppJSON) {
        let report: AppReport, run: RunInfo
        if offline {
            (report, run) = (.offline(inventory), RunInfo(ruleSet: nil, trustStore: nil, ctLogList: nil))
        } else {
            run = RunInfo(context: context, ruleSet: context.ruleSet.id)
            report = try await check(inventory, context: context, runner: try runner(), quiet: quiet, warn: warn)
        }
        var document = AppJSON(report)
        document.run = run
        return (report, document)
    }

    /// Every host loaded under its bundle's dictionary, then each dictionary tightened; progress
    /// for people, one line on stderr, redrawn, only when stderr is a terminal and not `quiet`.
    static func check(_ inventory: AppInventory, context: RunContext, runner: DiagnosticsRunner, quiet: Bool,
                              warn: (String) -> Void) async throws -> AppReport {
        let showProgress = isatty(STDERR_FILENO) == 1 && !quiet && !inventory.hosts.isEmpty
        // Said before any load: hosts that only a dictionary key names are loaded too.
        if !quiet, let line = AppText.dictionaryKeyHosts(inventory) { warn(line) }
        do {
            return try await AppReport.run(inventory, runner: runner, ruleSet: context.ruleSet, target: { try context.target($0) }) { done, total in
                guard showProgress else { return }
                FileStream.standardError.write("\r\u{1B}[2Kchecking hosts: \(done) of \(total)" + (done == total ? "\r\u{1B}[2K" : ""))
            }
        } catch let error as PropertyListError {
            throw InputError(InputError.Code(error), error.description)
        }
    }

    /// --source-plist BUNDLE=PATH (PATH alone: the app's): bundle path -> the repository's Info.plist, read and parsed.
    package static func sourcePlistMap(_ mappings: [String], _ inventory: AppInventory) throws -> [String: AppSARIF.SourcePlist] {
        var map: [String: AppSARIF.SourcePlist] = [:]
        for mapping in mappings {
            let parts = mapping.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let (name, path) = parts.count == 2 ? (String(parts[0]), String(parts[1])) : ("", mapping)
            guard !path.isEmpty else { throw InputError(.badArgument, "--source-plist '\(UntrustedText.escape(mapping, limit: 200))' names no file (BUNDLE=PATH)") }
            let bundle = name.isEmpty ? "" : try findBundle(name, inventory, option: "--source-plist")
            guard map[bundle] == nil else {
                throw InputError(.badArgument, "--source-plist: \(UntrustedText.escape(inventory.bundle(bundle)?.name(app: inventory.appName) ?? bundle, limit: 200)) is mapped twice")
            }
            let bytes = try FileStream.readAll(path, limit: PropertyListFile.defaultMaximumSize, what: "--source-plist ")
            do {
                let document = try PropertyListFile.parse(Data(bytes), path: path)
                map[bundle] = AppSARIF.SourcePlist(path: path, document: document, bytes: bytes)
            } catch {
                throw InputError(.badContents, "--source-plist '\(UntrustedText.escape(path, limit: 300))': \(error)")
            }
        }
        return map
    }

    /// A bundle of the app by path, identifier or (the app) its name.
    static func findBundle(_ name: String, _ inventory: AppInventory, option: String) throws -> String {
        let trimmed = name.hasSuffix("/") ? String(name.dropLast()) : name
        guard let match = inventory.bundles.first(where: { $0.path == trimmed || $0.identifier == trimmed || (trimmed == inventory.appName && $0.path.isEmpty) }) else {
            let names = inventory.bundles.map { $0.name(app: inventory.appName) }
            throw InputError(.badArgument, "\(option) '\(UntrustedText.escape(name, limit: 200))' is not a bundle of the app (choose from \(names.map { UntrustedText.escape($0, limit: 200) }.joined(separator: ", ")))")
        }
        return match.path
    }

    /// --bundle: a bundle with a dictionary of its own, by path or identifier ("" without one: the app).
    package static func selectedBundle(_ bundle: String?, _ inventory: AppInventory) throws -> String {
        guard let bundle else { return "" }
        let trimmed = bundle.hasSuffix("/") ? String(bundle.dropLast()) : bundle
        guard let match = inventory.bundles.first(where: { $0.path == trimmed || $0.identifier == trimmed || (trimmed == inventory.appName && $0.path.isEmpty) }) else {
            let names = inventory.bundles.filter { $0.dictionaryOwner == $0.path }.map { $0.name(app: inventory.appName) }
            throw InputError(.badArgument, "--bundle '\(UntrustedText.escape(bundle, limit: 200))' is not a bundle of the app (choose from \(names.map { UntrustedText.escape($0, limit: 200) }.joined(separator: ", ")))")
        }
        guard match.dictionaryOwner == match.path else {
            throw InputError(.badArgument, "--bundle '\(UntrustedText.escape(bundle, limit: 200))' is a framework: its loads use \(match.dictionaryOwner.isEmpty ? inventory.appName : match.dictionaryOwner)'s dictionary")
        }
        return match.path
    }
}

extension AppJSON {
    /// The engine's report as the document `app`'s formats render: each host's check as `plist
    /// check`'s per-target document (PlistCheckJSON.TargetJSON).
    package init(_ report: AppReport) {
        let results = report.results.map { result in
            DictionaryResult(bundle: result.bundle,
                             checks: result.checks.map { HostCheck(host: $0.host, check: PlistCheckJSON.TargetJSON($0.check)) },
                             tightening: result.tightening, tightenedPlist: result.tightenedPlist, unusedEntries: result.unusedEntries)
        }
        self.init(inventory: report.inventory, ruleSet: report.ruleSet?.id, results: results)
    }
}

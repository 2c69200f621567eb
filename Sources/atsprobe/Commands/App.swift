import ATSFiles
import ATSCommandOutputs
import ATSReport
import ArgumentParser
import ATSApp
import ATSEngine
import ATSPolicy
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

extension ATSProbeCommand {
    /// `atsprobe app PATH`: an app's own dictionaries against the hosts it names (docs/app.md).
    struct App: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "app",
            abstract: "Read an .ipa, .app or .xcarchive, find the hosts it names, and load each under the app's own ATS dictionary.",
            discussion: """
            Steps: the bundles and their dictionaries (linted); the hosts in executables and text resources, noise \
            filtered; each host loaded under the dictionary of its bundle (an extension's own for hosts found in it), \
            as `plist check` does; then the failures, the exceptions no host needs, the tightened dictionary and the \
            server fixes. --offline stops before connecting.
            Exit codes: 0 every load passes and nothing to tighten; 1 a load fails or a key is wider than needed \
            (offline: a lint finding at warning or above); 2 a host cannot be reached; 64 bad input or a refused archive.
            """
        )

        @Argument(help: "An .ipa file, an .app directory or an .xcarchive directory.", completion: .file())
        var path: String

        @Flag(name: .long, help: "Read the app and list its dictionaries and hosts; connect to nothing.")
        var offline = false

        @Option(name: .long, help: "Check HOST even if the noise filter drops it (.DOMAIN or *.DOMAIN: with its subdomains); repeatable.")
        var include: [String] = []

        @Option(name: .long, help: "Do not check HOST (.DOMAIN or *.DOMAIN: with its subdomains); repeatable.")
        var exclude: [String] = []

        @Option(name: .customLong("hosts-only"), help: "Check only the targets in FILE (one per line, # comments); listed hosts the app does not name are checked under the app's dictionary.", completion: .file())
        var hostsOnly: String?

        @Option(name: .long, help: "With --format plist: the bundle whose tightened dictionary to print (its path, e.g. PlugIns/Share.appex, or its CFBundleIdentifier). Default: the app.")
        var bundle: String?

        @Option(name: .customLong("source-plist"), help: ArgumentHelp("With --format sarif: place BUNDLE's results in the Info.plist the repository holds for it (BUNDLE as --bundle takes it; PATH alone: the app's); repeatable.", valueName: "BUNDLE=PATH"), completion: .file())
        var sourcePlists: [String] = []

        @Option(name: .customLong("max-entries"), help: "Refuse archives or bundles of more files than this (default 8000).")
        var maxEntries: Int = ArchiveLimits().maximumEntries

        @OptionGroup var diagnostics: DiagnosticsArguments
        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions<AppOutput>
        @OptionGroup var sarif: SARIFOptions
        @OptionGroup var colors: ColorOptions

        func run() async throws {
            try await ATSProbeCommand.guarded {
                guard maxEntries > 0, maxEntries <= 1_000_000 else { throw InputError("--max-entries must be between 1 and 1000000, got \(maxEntries)") }
                for (option, patterns) in [("--include", include), ("--exclude", exclude)] {
                    for pattern in patterns where !NoiseFilter.isValidPattern(pattern) {
                        throw InputError("\(option) '\(UntrustedText.escape(pattern, limit: 100))' is not a host name pattern (HOST, .DOMAIN or *.DOMAIN)")
                    }
                }
                if offline && output.effectiveFormat == .plist {
                    throw InputError("--format plist prints the tightened dictionary, which needs the live check: drop --offline")
                }
                let listed = try hostsOnly.map { file in
                    try TargetList.read(file, option: "--hosts-only").map { text in
                        do throws(TargetParseError) { return try Target(parsing: text) } catch { throw InputError("--hosts-only: \(error.description)") }
                    }
                }
                let ruleSet = try diagnostics.ruleSet()
                // Offline, nothing connects: the context has no runtime (none is started).
                let context = offline ? try connection.offlineContext(ruleSet: ruleSet) : try connection.context(ruleSet: ruleSet)

                let inventory: AppInventory
                do throws(AppReadError) {
                    inventory = try AppScan.inventory(path: path, limits: ArchiveLimits(maximumEntries: maxEntries),
                                                      filter: NoiseFilter(include: include, exclude: exclude), hostsOnly: listed)
                } catch {
                    throw InputError(error.description)
                }
                let plistBundle = try selectedBundle(inventory)
                // Read before any load: a bad mapping is bad input (64), not the end of a long run.
                if !sourcePlists.isEmpty && output.effectiveFormat != .sarif { throw InputError("--source-plist goes with --format sarif") }
                let sources = try sourcePlistMap(inventory)

                let report: AppReport
                let run: RunInfo
                if offline {
                    report = .offline(inventory)
                    run = RunInfo(ruleSet: nil, trustStore: nil, ctLogList: nil)
                } else {
                    run = RunInfo(context: context, ruleSet: ruleSet.id)
                    let runner = try context.runner(naming: connection)
                    // Progress for people: one line on stderr, redrawn, only when stderr is a terminal.
                    let showProgress = isatty(STDERR_FILENO) == 1 && !diagnostics.quiet && !inventory.hosts.isEmpty
                    // Said before any load: hosts that only a dictionary key names are loaded too.
                    if !diagnostics.quiet, let line = AppText.dictionaryKeyHosts(inventory) { Diagnostics.warn(line) }
                    do {
                        report = try await AppReport.run(inventory, runner: runner, ruleSet: ruleSet, target: { try context.target($0) }) { done, total in
                            guard showProgress else { return }
                            FileStream.standardError.write("\r\u{1B}[2Kchecking hosts: \(done) of \(total)" + (done == total ? "\r\u{1B}[2K" : ""))
                        }
                    } catch let error as PropertyListError {
                        throw InputError(error.description)
                    }
                }

                var sink = OutputSink(path: output.output)
                let result = AppOutput(report: report, run: run, plistBundle: plistBundle, sources: sources, toolVersion: ToolVersion.current)
                let format = output.effectiveFormat
                try sink.write(result, as: format, options: RenderOptions(verbose: diagnostics.verbose, palette: colors.palette(format: format, path: output.output),
                                                                          sarifCategory: format == .sarif ? try sarif.category(format: .sarif) : nil))
                try sink.finish()
                return ExitStatus(report.severity)
            }
        }

        /// --source-plist BUNDLE=PATH (PATH alone: the app's): bundle path -> the repository's Info.plist, read and parsed.
        func sourcePlistMap(_ inventory: AppInventory) throws -> [String: AppSARIF.SourcePlist] {
            var map: [String: AppSARIF.SourcePlist] = [:]
            for mapping in sourcePlists {
                let parts = mapping.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let (name, path) = parts.count == 2 ? (String(parts[0]), String(parts[1])) : ("", mapping)
                guard !path.isEmpty else { throw InputError("--source-plist '\(UntrustedText.escape(mapping, limit: 200))' names no file (BUNDLE=PATH)") }
                let bundle = name.isEmpty ? "" : try findBundle(name, inventory, option: "--source-plist")
                guard map[bundle] == nil else {
                    throw InputError("--source-plist: \(UntrustedText.escape(inventory.bundle(bundle)?.name(app: inventory.appName) ?? bundle, limit: 200)) is mapped twice")
                }
                let bytes = try FileStream.readAll(path, limit: PropertyListFile.defaultMaximumSize, what: "--source-plist ")
                do {
                    let document = try PropertyListFile.parse(Data(bytes), path: path)
                    map[bundle] = AppSARIF.SourcePlist(path: path, document: document, bytes: bytes)
                } catch {
                    throw InputError("--source-plist '\(UntrustedText.escape(path, limit: 300))': \(error)")
                }
            }
            return map
        }

        /// A bundle of the app by path, identifier or (the app) its name.
        func findBundle(_ name: String, _ inventory: AppInventory, option: String) throws -> String {
            let trimmed = name.hasSuffix("/") ? String(name.dropLast()) : name
            guard let match = inventory.bundles.first(where: { $0.path == trimmed || $0.identifier == trimmed || (trimmed == inventory.appName && $0.path.isEmpty) }) else {
                let names = inventory.bundles.map { $0.name(app: inventory.appName) }
                throw InputError("\(option) '\(UntrustedText.escape(name, limit: 200))' is not a bundle of the app (choose from \(names.map { UntrustedText.escape($0, limit: 200) }.joined(separator: ", ")))")
            }
            return match.path
        }

        /// --bundle: a bundle with a dictionary of its own, by path or identifier.
        func selectedBundle(_ inventory: AppInventory) throws -> String {
            guard let bundle else { return "" }
            let trimmed = bundle.hasSuffix("/") ? String(bundle.dropLast()) : bundle
            guard let match = inventory.bundles.first(where: { $0.path == trimmed || $0.identifier == trimmed || (trimmed == inventory.appName && $0.path.isEmpty) }) else {
                let names = inventory.bundles.filter { $0.dictionaryOwner == $0.path }.map { $0.name(app: inventory.appName) }
                throw InputError("--bundle '\(UntrustedText.escape(bundle, limit: 200))' is not a bundle of the app (choose from \(names.map { UntrustedText.escape($0, limit: 200) }.joined(separator: ", ")))")
            }
            guard match.dictionaryOwner == match.path else {
                throw InputError("--bundle '\(UntrustedText.escape(bundle, limit: 200))' is a framework: its loads use \(match.dictionaryOwner.isEmpty ? inventory.appName : match.dictionaryOwner)'s dictionary")
            }
            return match.path
        }
    }
}

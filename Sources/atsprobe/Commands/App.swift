import ATSFiles
import CommandRuns
import ATSCommandOutputs
import ATSReport
import ArgumentParser
import ATSApp
import ATSEngine
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
                try AppRun.checkOptions(maxEntries: maxEntries, include: include, exclude: exclude)
                // Checked before any load, as diagnose and report do: a category without SARIF is bad input (64).
                let category = try sarif.category(format: output.effectiveFormat)
                if offline && output.effectiveFormat == .plist {
                    throw InputError(.badArgument, "--format plist prints the tightened dictionary, which needs the live check: drop --offline")
                }
                let listed = try hostsOnly.map(AppRun.listedTargets)
                let ruleSet = try diagnostics.ruleSet()
                // Offline, nothing connects: the context has no runtime (none is started).
                let context = offline ? try connection.offlineContext(ruleSet: ruleSet) : try connection.context(ruleSet: ruleSet)
                let inventory = try AppRun.inventory(path: path, maxEntries: maxEntries, include: include, exclude: exclude, hostsOnly: listed)
                let plistBundle = try AppRun.selectedBundle(bundle, inventory)
                // Read before any load: a bad mapping is bad input (64), not the end of a long run.
                if !sourcePlists.isEmpty && output.effectiveFormat != .sarif { throw InputError(.badArgument, "--source-plist goes with --format sarif") }
                let sources = try AppRun.sourcePlistMap(sourcePlists, inventory)

                let (report, document) = try await AppRun.report(inventory, offline: offline, context: context, runner: { try context.runner(naming: connection) },
                                                            quiet: diagnostics.quiet, warn: Diagnostics.warn)

                var sink = OutputSink(path: output.output)
                let result = AppOutput(report: document, plistBundle: plistBundle, sources: sources, toolVersion: ToolVersion.current)
                let format = output.effectiveFormat
                try sink.write(result, as: format, options: RenderOptions(verbose: diagnostics.verbose, palette: colors.palette(format: format, path: output.output),
                                                                          sarifCategory: category))
                try sink.finish()
                return ExitStatus(report.severity)
            }
        }
    }
}

import ATSFiles
import CommandRuns
import ATSCommandOutputs
import ATSReport
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ATSProbeCommand {
    /// `atsprobe pins URL|HOST`: the SPKI-SHA256-BASE64 pins of the served chain, a ready
    /// NSPinnedDomains dictionary, and with --plist whether an app's pins accept the chain.
    struct Pins: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pins",
            abstract: "Print the SPKI pins of the served chain and a ready NSPinnedDomains dictionary; check an Info.plist's pins.",
            discussion: """
            --format plist prints only the NSAppTransportSecurity/NSPinnedDomains plist.
            Exit codes: 0 pins printed (with --plist: every pin set that applies is satisfied, or none applies); \
            1 a pin set is not satisfied, or the handshake failed; 2 unreachable or not TLS; 64 bad input.
            """
        )

        @Argument(help: "URL, HOST, HOST:PORT or [IPv6]:PORT.")
        var target: String

        @Option(name: .long, help: "Info.plist (or a bare NSAppTransportSecurity dictionary) whose NSPinnedDomains to check against the served chain.", completion: .file())
        var plist: String?

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions<PinsReport>

        func run() async throws {
            try await ATSProbeCommand.guarded {
                let context = try connection.context(ruleSet: .current)
                let target = try context.target(self.target)
                // Bad input first: the plist is read before any connection.
                let configuration = try plist.map(PinsRun.configuration(path:))
                var report = await PinsRun.probe(target, run: try context.run(naming: connection), configuration: configuration)
                report.run = RunInfo(context: context, ruleSet: nil)
                var sink = OutputSink(path: output.output)
                try sink.write(report, as: output.effectiveFormat)
                try sink.finish()
                return ExitStatus(report.severity)
            }
        }
    }
}

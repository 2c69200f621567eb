import ATSEngine
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
    /// `atsprobe probe HOST[:PORT] | URL`: one handshake with the widest offer, every fact observed.
    struct Probe: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "probe",
            abstract: "Make one handshake with the widest offer and print every fact observed.",
            discussion: "Exit codes: 0 handshake made and chain trusted; 1 handshake failed or trust problems; 2 unreachable or not TLS; 64 bad input."
        )

        @Argument(help: "URL, HOST, HOST:PORT or [IPv6]:PORT.")
        var target: String

        @Option(name: .customLong("fail-on"), parsing: .upToNextOption,
                help: ArgumentHelp("Which verdicts exit 1 when the handshake succeeds: trust, apple-rules, ct, all or none (several allowed; default all).", valueName: "check"))
        var failOn: [ProbeCheck] = [.all]

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions<ProbeOutput>
        @OptionGroup var colors: ColorOptions

        func run() async throws {
            try await ATSProbeCommand.guarded {
                // probe has no --rules: the newest release's certificate rules.
                let context = try connection.context(ruleSet: .current)
                let target = try context.target(self.target)
                let logs = context.trust.ctLogs
                let probeRun = try context.run(naming: connection)
                let run = RunInfo(context: context, ruleSet: nil)
                let judgement = await probeRun.probe(target)
                var sink = OutputSink(path: output.output)
                let result = ProbeOutput(report: ProbeReport(judgement, run: run), logs: logs)
                try sink.write(result, as: output.effectiveFormat,
                               options: RenderOptions(palette: colors.palette(format: output.effectiveFormat, path: output.output)))
                try sink.finish()
                return ExitStatus(judgement.severity(failOn: Set(failOn)))
            }
        }
    }
}

extension ProbeCheck: ExpressibleByArgument {}

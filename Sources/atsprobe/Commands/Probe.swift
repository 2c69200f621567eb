import ATSEngine
import ATSFiles
import ATSReport
import ArgumentParser
import ATSPolicy
import ATSProbe
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport
import TLSFacts

extension ATSProbeCommand {
    /// `atsprobe probe HOST[:PORT] | URL`: one handshake with the widest offer, every fact observed.
    struct Probe: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make one handshake with the widest offer and print every fact observed.",
            discussion: "Exit codes: 0 handshake made and chain trusted; 1 handshake failed or trust problems; 2 unreachable or not TLS; 64 bad input."
        )

        @Argument(help: "URL, HOST, HOST:PORT or [IPv6]:PORT.")
        var target: String

        @Option(name: .customLong("fail-on"), parsing: .upToNextOption,
                help: ArgumentHelp("Which verdicts exit 1 when the handshake succeeds: trust, apple-rules, ct, all or none (several allowed; default all).", valueName: "check"))
        var failOn: [ProbeCheck] = [.all]

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions<TextOrJSON>
        @OptionGroup var colors: ColorOptions

        func run() async throws {
            try await ATSProbeCommand.guarded {
                let target = try connection.target(self.target)
                let logs = try connection.ctLogs()
                let prober = try makeProber(connection, logs: logs)
                let run = RunInfo(ruleSet: nil, connection: connection, logs: logs)
                let judgement = await ProbeJudgement.probe(target, prober: prober, timeout: connection.timeout, logs: logs)
                var sink = OutputSink(path: output.output)
                let report = ProbeReport(judgement, run: run)
                switch output.effectiveFormat {
                case .json:
                    sink.write(String(decoding: try JSONEncoder.atsprobe().encode(report), as: UTF8.self) + "\n")
                case .text:
                    sink.write(ProbeText.render(target: target, result: judgement.result, report: report, logs: logs,
                                                palette: colors.palette(format: .text, path: output.output)))
                default:
                    // OutputOptions<TextOrJSON> parses no other format.
                    throw InputError("probe writes text or json only")
                }
                try sink.finish()
                return ExitStatus(judgement.severity(failOn: Set(failOn)))
            }
        }
    }
}

/// Builds the prober from the shared options; a bad --ca-file is bad input (64). `logs`
/// supplies the CT log keys SCT signatures are checked with.
func makeProber(_ connection: ConnectionOptions, logs: CTLogList) throws -> Prober {
    var options = ProbeOptions(
        caFile: connection.caFile, caDirectory: connection.caDir,
        evaluationDate: try connection.evaluationDate(),
        ctLogKeys: logs.keys, trustStore: connection.trustStore, fetchesMissingIssuers: !connection.noAIA,
        dnsServers: try connection.parsedDNSServers())
    options.allowsPrivateIssuerFetch = connection.allowPrivateFetch
    return try makeProber(options, connection: connection)
}

/// The prober for `options`; a bad --ca-file or --ca-dir is bad input (64).
func makeProber(_ options: ProbeOptions, connection: ConnectionOptions) throws -> Prober {
    do {
        return try Prober(options: options, runtime: CommandRuntime.runtime)
    } catch let error as InputError {
        throw error
    } catch let error as ProbeSetupError {
        // Name the option as well as the file: "--ca-file 'roots.pem': no PEM certificate in file".
        // The files the CLI gives the trust store: --ca-file, --ca-dir and cert's --app-anchor.
        guard let path = error.path else { throw InputError(error.description) }
        let option = path == connection.caFile ? "--ca-file" : path == options.appAnchorFile ? "--app-anchor" : "--ca-dir"
        throw InputError("\(option) '\(UntrustedText.escape(path, limit: 300))': \(error.reason)")
    } catch {
        throw InputError(String(describing: error))
    }
}

extension ProbeCheck: ExpressibleByArgument {}

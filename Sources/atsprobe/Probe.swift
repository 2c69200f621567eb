import ArgumentParser
import ATSPolicy
import ATSProbe
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
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

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await ATSProbeCommand.guarded {
                let target = try connection.target(self.target)
                let logs = try connection.ctLogs()
                let prober = try makeProber(connection, logs: logs)
                let request = ProbeRequest(target: target, offer: Prober.widestOffer, httpRequest: false, timeout: connection.timeout)
                let result = await prober.probe(request)
                var sink = OutputSink(path: output.output)
                switch output.effectiveFormat {
                case .json:
                    let report = ProbeReport(target: target, result: result)
                    sink.write(String(decoding: try JSONEncoder.atsprobe().encode(report), as: UTF8.self) + "\n")
                case .text:
                    sink.write(ProbeText.render(target: target, result: result, logs: logs))
                case .plist:
                    throw InputError("probe has no plist output (use --format text or json; plist is for diagnose, audit and pins)")
                }
                try sink.finish()
                return ProbeReport.exitStatus(for: result)
            }
        }
    }
}

/// Builds the prober from the shared options; a bad --ca-file is bad input (64). `logs`
/// supplies the CT log keys SCT signatures are checked with.
func makeProber(_ connection: ConnectionOptions, logs: CTLogList, maxConcurrent: Int = 16) throws -> Prober {
    do {
        return try Prober(options: ProbeOptions(
            caFile: connection.caFile, caDirectory: connection.caDir,
            evaluationDate: try connection.evaluationDate(), maxConcurrentHandshakes: maxConcurrent,
            ctLogKeys: logs.keys, trustStore: connection.trustStore, fetchesMissingIssuers: !connection.noAIA))
    } catch let error as InputError {
        throw error
    } catch let error as ProbeSetupError {
        // Name the option as well as the file: "--ca-file 'roots.pem': no PEM certificate in file".
        // The only files the CLI gives the trust store are --ca-file and --ca-dir.
        guard let path = error.path else { throw InputError(error.description) }
        let option = path == connection.caFile ? "--ca-file" : "--ca-dir"
        throw InputError("\(option) '\(UntrustedText.escape(path, limit: 300))': \(error.reason)")
    } catch {
        throw InputError(String(describing: error))
    }
}

/// `probe --json`: see docs/json-schema.md.
struct ProbeReport: Encodable {
    let schemaVersion = jsonSchemaVersion
    let target: TargetReport
    let outcome: String
    let observation: Observation?
    /// The negotiated suite named three ways (IANA, code point, OpenSSL).
    let suite: SuiteReport?
    let failure: ProbeFailure?

    struct SuiteReport: Encodable {
        let ianaName: String
        let codePoint: String
        let openSSLName: String
    }

    init(target: Target, result: ProbeResult) {
        self.target = TargetReport(target)
        switch result {
        case .success(let observation):
            outcome = "handshake"; self.observation = observation; failure = nil
            suite = SuiteReport(ianaName: observation.cipherSuite.ianaName, codePoint: observation.cipherSuite.codePoint,
                                openSSLName: observation.openSSLCipherName)
        case .failure(let failure):
            outcome = "failure"; observation = nil; self.failure = failure; suite = nil
        }
    }

    static func exitStatus(for result: ProbeResult) -> ExitStatus {
        switch result {
        case .success(let observation): return observation.trust.isTrusted ? .clear : .findings
        case .failure(let failure): return failure.isUnreachable ? .unreachable : .findings
        }
    }
}

/// How a target is named in JSON.
struct TargetReport: Encodable {
    let url: String
    let host: String
    let port: Int
    let connectAddress: String?
    let connectPort: Int?

    init(_ target: Target) {
        url = target.url
        host = target.host
        port = target.port
        connectAddress = target.connectAddress
        connectPort = target.connectPort
    }
}

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
                let request = ProbeRequest(target: target, offer: Prober.widestOffer, httpRequest: false, timeout: connection.timeout)
                let run = RunInfo(ruleSet: nil, connection: connection, logs: logs)
                let result = await prober.probe(request)
                var sink = OutputSink(path: output.output)
                let report = ProbeReport(target: target, result: result, logs: logs, run: run)
                switch output.effectiveFormat {
                case .json:
                    sink.write(String(decoding: try JSONEncoder.atsprobe().encode(report), as: UTF8.self) + "\n")
                case .text:
                    sink.write(ProbeText.render(target: target, result: result, report: report, logs: logs,
                                                palette: colors.palette(format: .text, path: output.output)))
                default:
                    // OutputOptions<TextOrJSON> parses no other format.
                    throw InputError("probe writes text or json only")
                }
                try sink.finish()
                return report.exitStatus(failOn: Set(failOn))
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
        // The only files the CLI gives the trust store are --ca-file and --ca-dir.
        guard let path = error.path else { throw InputError(error.description) }
        let option = path == connection.caFile ? "--ca-file" : "--ca-dir"
        throw InputError("\(option) '\(UntrustedText.escape(path, limit: 300))': \(error.reason)")
    } catch {
        throw InputError(String(describing: error))
    }
}

/// What `probe --fail-on` can make fail.
enum ProbeCheck: String, ExpressibleByArgument, CaseIterable, Codable {
    /// The chain does not verify to an anchor (expired, wrong name, unknown root, ...).
    case trust
    /// Apple's certificate rules other than CT (key size, SHA-1, lifetime, SAN, EKU).
    case appleRules = "apple-rules"
    /// Apple's Certificate Transparency policy.
    case ct
    case all, none
}

/// `probe --json`: see docs/json-schema.md. Everything the text shows: the handshake, trust,
/// Apple's certificate rules and the CT verdict, and which of them failed.
struct ProbeReport: Encodable {
    let schemaVersion = jsonSchemaVersion
    let run: RunInfo
    let target: TargetReport
    let outcome: String
    let observation: Observation?
    /// The negotiated suite named three ways (IANA, code point, OpenSSL).
    let suite: SuiteReport?
    let failure: ProbeFailure?
    /// Apple's certificate rules as of `evaluatedAt` (--at or now); nil without a handshake.
    let appleRules: AppleRules?
    let certificateTransparency: CTPolicyResult?
    /// The checks that failed: "trust", "apple-rules", "ct" (whatever --fail-on says).
    let failed: [ProbeCheck]

    struct SuiteReport: Encodable {
        let ianaName: String
        let codePoint: String
        let openSSLName: String
    }

    struct AppleRules: Encodable {
        let met: Bool
        let evaluatedAt: Date
        let violations: [CertificateRuleViolation]
    }

    init(target: Target, result: ProbeResult, logs: CTLogList, run: RunInfo) {
        self.run = run
        self.target = TargetReport(target)
        switch result {
        case .success(let observation):
            outcome = "handshake"; self.observation = observation; failure = nil
            suite = SuiteReport(ianaName: observation.cipherSuite.ianaName, codePoint: observation.cipherSuite.codePoint,
                                openSSLName: observation.openSSLCipherName)
            let at = observation.trust.evaluatedAt
            // probe has no --rules: Apple's rules as the newest release reads them.
            let rules = RuleSet.default.certificateRules
            let violations = AppleCertificatePolicy.violations(in: observation, at: at, rules: rules, logs: logs)
            appleRules = AppleRules(met: violations.isEmpty, evaluatedAt: at, violations: violations)
            let ct = AppleCertificatePolicy.certificateTransparency(in: observation, at: at, rules: rules, logs: logs)
            certificateTransparency = ct
            var failed: [ProbeCheck] = []
            if !observation.trust.isTrusted { failed.append(.trust) }
            if violations.contains(where: { $0.rule != CertificateRuleID.certificateTransparency }) { failed.append(.appleRules) }
            if ct.verdict == .nonCompliant { failed.append(.ct) }
            self.failed = failed
        case .failure(let failure):
            outcome = "failure"; observation = nil; self.failure = failure; suite = nil
            appleRules = nil; certificateTransparency = nil; failed = []
        }
    }

    /// 2 unreachable; 1 handshake failed, or a check --fail-on names failed; else 0.
    func exitStatus(failOn: Set<ProbeCheck>) -> ExitStatus {
        if let failure { return failure.isUnreachable ? .unreachable : .findings }
        if failOn.contains(.none) { return .clear }
        let checked = failOn.contains(.all) ? Set([ProbeCheck.trust, .appleRules, .ct]) : failOn
        return failed.contains(where: checked.contains) ? .findings : .clear
    }
}

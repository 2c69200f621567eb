import ATSFiles
import ArgumentParser
import ATSEngine
import ATSPolicy
import ATSProbe
import ATSCommandOutputs
import CommandRuns
import ATSReport
import ATSTrust
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport
import TLSFacts

extension ATSProbeCommand {
    /// `atsprobe cert CHAIN --host NAME`: a chain file judged as an Apple device judges an SSL
    /// server's chain, without a server (issue 22): the public `ChainVerifier` (a `Run`'s
    /// `judge(_:name:)`, caIssuers fetched by `NetworkIssuerFetching`), whose evaluation is a
    /// handshake's (ATSTrust's ChainTrust), with the same certificate rules.
    struct Cert: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "cert",
            abstract: "Judge a certificate chain file as an Apple device would for an SSL server name.",
            discussion: "CHAIN is a PEM bundle (leaf first), one DER certificate or a PKCS#7 certs-only message ('-' reads standard input). Exit codes: 0 an Apple device would trust it; 1 it would not; 64 bad input."
        )

        @Argument(help: ArgumentHelp("The chain file: PEM (leaf first), DER or PKCS#7.", valueName: "chain"), completion: .file())
        var chain: String

        @Option(name: .long, help: ArgumentHelp("The server name the chain is for: a DNS name, or an IP address (matched only by an iPAddress subjectAltName).", valueName: "name"))
        var host: String

        @Option(name: .long, help: RulesOption.help("ATS rule set whose certificate rules apply"), completion: RulesOption.completions())
        var rules: String = RuleSet.current.id

        @Option(name: .long, help: ArgumentHelp("Anchors the app sets itself (SecTrustSetAnchorCertificates), a PEM file: only these end the chain; judged as Apple judges app anchors (docs/trust.md). Not with --ca-file/--ca-dir.", valueName: "file"),
                completion: .file())
        var appAnchor: String?

        @Option(name: .customLong("pin-leaf-spki"), help: ArgumentHelp("A leaf identity the app pins (NSPinnedLeafIdentities' SPKI-SHA256-BASE64); repeatable: the leaf must match one.", valueName: "base64"))
        var pinLeafSPKI: [String] = []

        @Option(name: .customLong("pin-ca-spki"), help: ArgumentHelp("A CA identity the app pins (NSPinnedCAIdentities' SPKI-SHA256-BASE64); repeatable: a CA of the chain as built must match one.", valueName: "base64"))
        var pinCASPKI: [String] = []

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions<CertReport>
        @OptionGroup var forecastOptions: ForecastOptions

        func run() async throws {
            try await ATSProbeCommand.guarded {
                let ruleSet = try RulesOption.resolve(rules)
                for pin in pinLeafSPKI + pinCASPKI where !CertRun.isSPKIPin(pin) {
                    throw InputError(.badArgument, "pin '\(UntrustedText.escape(pin, limit: 100))' is not an SPKI-SHA256-BASE64 identity (base64 of 32 bytes)")
                }
                // A wildcard names certificates, not servers: a client connects to one name, and
                // a certificate's *.example.com matches it (RFC 6125 6.4.3); '*' in the name asked for
                // would judge a match no connection makes.
                if host.contains("*") {
                    throw InputError(.badArgument, "--host '\(UntrustedText.escape(host, limit: 200))' is a wildcard, not a server name: give the name a client connects to (e.g. www.example)")
                }
                // The context refuses --app-anchor beside --ca-file/--ca-dir (they would be replaced).
                let context = try connection.context(ruleSet: ruleSet, appAnchor: appAnchor,
                                                     forecastHorizonSeconds: try forecastOptions.horizonSeconds())
                // A name with an empty label (".test.apple.com") is evaluated and matches nothing,
                // as Apple's SecDNSMatch does (SSLTrustPolicyTest Test20), rather than refused.
                guard let name = ServerName.normalized(host) ?? CertRun.emptyLabelName(host) else {
                    throw InputError(.badArgument, "--host '\(UntrustedText.escape(UntrustedText.redactingPassword(host), limit: 200))' is not a DNS name or an IP address")
                }
                let parsed = try CertRun.chain(path: chain)
                // The public ChainVerifier, with the run's anchors and NetworkIssuerFetching.
                let judged = try await context.run(naming: connection).judge(parsed, name: name)
                var judgement = judged.judgement
                let forecast = judged.forecast
                if !pinLeafSPKI.isEmpty || !pinCASPKI.isEmpty {
                    judgement = judgement.applying(pins: PinSet(caIdentities: pinCASPKI.isEmpty ? nil : pinCASPKI,
                                                                leafIdentities: pinLeafSPKI.isEmpty ? nil : pinLeafSPKI))
                }
                let run = RunInfo(context: context, ruleSet: ruleSet.id)
                let report = CertReport(run: run, host: name, judgement: judgement, bundleOrder: CertAdvice.orderProblem(parsed.chain.facts),
                                        forecast: forecast)
                var sink = OutputSink(path: output.output)
                try sink.write(report, as: output.effectiveFormat)
                try sink.finish()
                return judgement.trusted ? .clear : .findings
            }
        }
    }
}

import ArgumentParser
import ATSPolicy
import ATSProbe
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
    /// server's chain, without a server (issue 22). The same evaluator as a handshake's
    /// (Prober.evaluate(chain:), ATSTrust's ChainTrust) and the same certificate rules.
    struct Cert: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Judge a certificate chain file as an Apple device would for an SSL server name.",
            discussion: "CHAIN is a PEM bundle (leaf first), one DER certificate or a PKCS#7 certs-only message ('-' reads standard input). Exit codes: 0 an Apple device would trust it; 1 it would not; 64 bad input."
        )

        @Argument(help: ArgumentHelp("The chain file: PEM (leaf first), DER or PKCS#7.", valueName: "chain"), completion: .file())
        var chain: String

        @Option(name: .long, help: ArgumentHelp("The server name the chain is for: a DNS name, or an IP address (matched only by an iPAddress subjectAltName).", valueName: "name"))
        var host: String

        @Option(name: .long, help: ArgumentHelp("ATS rule set whose certificate rules apply: \(RuleSet.all.map(\.id).joined(separator: ", ")). Default: \(RuleSet.default.id).", valueName: "name"),
                completion: .list(RuleSet.all.map(\.id)))
        var rules: String = RuleSet.default.id

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions<TextOrJSON>

        func run() async throws {
            try await ATSProbeCommand.guarded {
                try connection.check()
                guard let ruleSet = RuleSet.named(rules) else {
                    throw InputError("unknown rule set '\(UntrustedText.escape(rules, limit: 60))' (choose from \(RuleSet.all.map(\.id).joined(separator: ", ")))")
                }
                let name = try CertHostName.normalized(host)
                let logs = try connection.ctLogs()
                let bytes = try readChain()
                let parsed: ChainFile.Chain
                do {
                    parsed = try ChainFile.chain(in: bytes)
                } catch let error as ChainFile.ReadError {
                    throw InputError("cert '\(UntrustedText.escape(chain, limit: 400))': \(error.reason)")
                }
                var options = ProbeOptions(caFile: connection.caFile, caDirectory: connection.caDir,
                                           evaluationDate: try connection.evaluationDate(), ctLogKeys: logs.keys,
                                           trustStore: connection.trustStore, fetchesMissingIssuers: !connection.noAIA)
                options.allowsPrivateIssuerFetch = connection.allowPrivateFetch
                let prober = try makeProber(options, connection: connection)
                let (facts, trust) = await prober.evaluate(chain: parsed, name: name, timeout: connection.timeout)
                let judgement = ChainJudgement(given: facts, trust: trust, name: name, rules: ruleSet.certificateRules, logs: logs)
                let report = CertReport(run: RunInfo(ruleSet: ruleSet.id, connection: connection, logs: logs),
                                        host: name, judgement: judgement)
                var sink = OutputSink(path: output.output)
                switch output.effectiveFormat {
                case .json:
                    sink.write(String(decoding: try JSONEncoder.atsprobe().encode(report), as: UTF8.self) + "\n")
                case .text:
                    sink.write(CertText.render(report))
                default:
                    throw InputError("cert writes text or json only")
                }
                try sink.finish()
                return judgement.trusted ? .clear : .findings
            }
        }

        /// The file, bounded; a FIFO or device is refused (it could block or never end); '-' is standard input.
        private func readChain() throws -> [UInt8] {
            let name = "cert '\(UntrustedText.escape(chain, limit: 400))'"
            do {
                return try BoundedFile.read(chain, limit: ChainFile.byteLimit, dashIsStandardInput: true, allowPipes: false)
            } catch {
                switch error {
                case .tooLarge: throw InputError("\(name): larger than \(ChainFile.byteLimit) bytes, not a certificate chain")
                case .system(let code): throw InputError("\(name): \(BoundedFile.describe(errno: code))")
                case .notAFile: throw InputError("\(name): \(error.reason)")
                }
            }
        }
    }
}

/// `cert --host`: a DNS name or an IP literal; one trailing dot is removed before matching, as
/// Apple does with the host it is given (SecPolicyServer.c SecPolicyCheckSSLHostname).
enum CertHostName {
    static func normalized(_ text: String) throws -> String {
        var name = text
        if name.hasPrefix("[") && name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if IPAddress(name) != nil { return name }
        if name.hasSuffix(".") { name.removeLast() }
        guard !name.isEmpty, name.utf8.count <= 253,
              name.unicodeScalars.allSatisfy({ ($0.isASCII && $0.value > 0x20 && $0.value < 0x7F) && $0 != "/" && $0 != ":" }),
              !name.hasPrefix("."), !name.contains("..") else {
            throw InputError("--host '\(UntrustedText.escape(text, limit: 200))' is not a DNS name or an IP address")
        }
        return name.lowercased()
    }
}

/// `cert --json` (docs/json-schema.md): the run, the name, and the judgement.
struct CertReport: Encodable {
    let schemaVersion = jsonSchemaVersion
    let run: RunInfo
    let host: String
    let judgement: ChainJudgement

    enum CodingKeys: String, CodingKey { case schemaVersion, run, host, trusted, failures, chain, anchor, anchorKind, evaluatedAt, fetchedIssuers }

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(schemaVersion, forKey: .schemaVersion)
        try container.encode(run, forKey: .run)
        try container.encode(host, forKey: .host)
        try judgement.encode(to: encoder)
    }
}

/// `cert`'s text: the verdict, then one line per failure with its fix, then the chain as built.
enum CertText {
    static func render(_ report: CertReport) -> String {
        let judgement = report.judgement
        var lines: [String] = []
        let anchor = judgement.anchor.map { "'\(UntrustedText.escape($0.subject, limit: 200))'" }
        let kind = judgement.anchorKind.map { String($0.rawValue.map { $0 == "-" ? " " : $0 }) }
        lines.append(judgement.trusted
            ? "TRUSTED: an Apple device would trust this chain for \(report.host)"
            : "NOT TRUSTED: an Apple device would not trust this chain for \(report.host) (\(judgement.failures.count) failure(s))")
        if let anchor, let kind { lines.append("anchor: \(anchor) (\(kind))") }
        for failure in judgement.failures {
            // The reason already names the certificate (its index, role and subject).
            lines.append("FAIL [\(failure.rule)] \(failure.reason)")
            lines.append("  fix: \(failure.fix)")
            lines.append("  source: \(failure.source)")
        }
        lines.append("chain\(judgement.anchor == nil ? " (as given)" : " (as built)"):")
        for (index, certificate) in judgement.chain.enumerated() {
            lines.append("  \(index): \(UntrustedText.escape(certificate.subject, limit: 200))")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

import ATSEngine
import ATSTrust
import TextSupport
import TLSFacts

/// `cert --json` (docs/json-schema.md): the run, the name, and the judgement.
package struct CertReport: Encodable {
    package let schemaVersion = jsonSchemaVersion
    package let run: RunInfo
    package let host: String
    package let judgement: ChainJudgement
    /// `cert --forecast`: the same three fields as a diagnostics document's (ForecastJSON).
    let forecast: ForecastFields

    package init(run: RunInfo, host: String, judgement: ChainJudgement, forecast: TargetForecast? = nil) {
        self.run = run
        self.host = host
        self.judgement = judgement
        self.forecast = ForecastFields(forecast)
    }

    package enum CodingKeys: String, CodingKey { case schemaVersion, run, host, trusted, failures, chain, anchor, anchorKind, evaluatedAt, fetchedIssuers, forecastWindow, forecast, renewal }

    package func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(schemaVersion, forKey: .schemaVersion)
        try container.encode(run, forKey: .run)
        try container.encode(host, forKey: .host)
        try container.encodeIfPresent(forecast.window, forKey: .forecastWindow)
        try container.encodeIfPresent(forecast.changes, forKey: .forecast)
        try container.encodeIfPresent(forecast.renewal, forKey: .renewal)
        try judgement.encode(to: encoder)
    }
}

/// `cert`'s text: the verdict, then one line per failure with its fix, then the chain as built.
package enum CertText {
    package static func render(_ report: CertReport) -> String {
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
        lines += ForecastText.lines(window: report.forecast.window, changes: report.forecast.changes, renewal: report.forecast.renewal)
            .map { "FORECAST \(UntrustedText.escape($0))" }
        return lines.joined(separator: "\n") + "\n"
    }
}

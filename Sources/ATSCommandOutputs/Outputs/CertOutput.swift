import ATSReport
import ATSAdvice
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
    /// The file is not leaf first (CertAdvice.orderProblem); nil when it is.
    package let bundleOrder: String?
    /// What the server should change, as diagnose says it (nginx, Apache, HAProxy lines).
    package let serverFixes: [ServerFix]
    /// `cert --forecast`: the same three fields as a diagnostics document's (ForecastJSON).
    let forecast: ForecastFields

    package init(run: RunInfo, host: String, judgement: ChainJudgement, bundleOrder: String? = nil, forecast: TargetForecast? = nil) {
        self.run = run
        self.host = host
        self.judgement = judgement
        self.bundleOrder = bundleOrder
        serverFixes = CertAdvice.fixes(judgement, host: host, order: bundleOrder)
        self.forecast = ForecastFields(forecast)
    }

    package enum CodingKeys: String, CodingKey { case schemaVersion, run, host, trusted, failures, chain, anchor, anchorKind, evaluatedAt, fetchedIssuers, bundleOrder, serverFixes, forecastWindow, forecast, renewal }

    package func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(schemaVersion, forKey: .schemaVersion)
        try container.encode(run, forKey: .run)
        try container.encode(host, forKey: .host)
        try container.encodeIfPresent(forecast.window, forKey: .forecastWindow)
        try container.encodeIfPresent(forecast.changes, forKey: .forecast)
        try container.encodeIfPresent(forecast.renewal, forKey: .renewal)
        try judgement.encode(to: encoder)
        try container.encodeIfPresent(bundleOrder, forKey: .bundleOrder)
        try container.encode(serverFixes, forKey: .serverFixes)
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
        if let order = report.bundleOrder { lines.append("ORDER: \(order)") }
        for failure in judgement.failures {
            // The reason already names the certificate (its index, role and subject).
            lines.append("FAIL [\(failure.rule)] \(failure.reason)")
            lines.append("  fix: \(failure.fix)")
            lines.append("  source: \(failure.source)")
        }
        for fix in report.serverFixes {
            lines.append("Server fix: \(UntrustedText.escape(fix.change, limit: 1000))")
            lines.append(contentsOf: ExceptionPlist.serverLines("nginx", fix.nginx).split(separator: "\n").map(String.init))
            lines.append(contentsOf: ExceptionPlist.serverLines("Apache", fix.apache).split(separator: "\n").map(String.init))
            if !fix.haproxy.isEmpty { lines.append(contentsOf: ExceptionPlist.serverLines("HAProxy", fix.haproxy).split(separator: "\n").map(String.init)) }
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

import ATSAdvice
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

/// `cert --json` (docs/json-schema.md): the run, the name, and the judgement. The text (CertText)
/// reads it too; ATSEngine writes it from ATSTrust's `ChainJudgement`
/// (Documents/CertReport+Engine.swift).
package struct CertReport: Encodable {
    package let schemaVersion = jsonSchemaVersion
    package let run: RunInfo
    package let host: String
    package let judgement: Judgement
    /// The file is not leaf first (CertAdvice.orderProblem); nil when it is.
    package let bundleOrder: String?
    /// What the server should change, as diagnose says it (nginx, Apache, HAProxy lines).
    package let serverFixes: [ServerFix]
    /// `cert --forecast`: the same three fields as a diagnostics document's (ForecastJSON).
    package let forecastWindow: ForecastWindowJSON?
    package let forecast: [ForecastChangeJSON]?
    package let renewal: RenewalJSON?

    /// The chain judged as an Apple device judges it (ATSTrust's `ChainJudgement`, field for
    /// field as it encodes: its fields sit at the document's top level).
    package struct Judgement {
        package var trusted: Bool { failures.isEmpty }
        package var failures: [Failure]
        /// The chain as built, leaf first and anchor last, when it reached an anchor; else the chain as given.
        package var chain: [CertificateFacts]
        package var anchor: CertificateFacts?
        /// "system-root", "user-trusted-root", "user-trusted-leaf" or "app-anchor" (docs/trust.md).
        package var anchorKind: String?
        package var evaluatedAt: Date
        package var fetchedIssuers: [FetchedIssuer]?

        package struct Failure: Encodable {
            package var rule: String
            package var certificateIndex: Int?
            package var reason: String
            package var source: String
            package var fix: String

            package init(rule: String, certificateIndex: Int?, reason: String, source: String, fix: String) {
                self.rule = rule
                self.certificateIndex = certificateIndex
                self.reason = reason
                self.source = source
                self.fix = fix
            }
        }

        package init(failures: [Failure], chain: [CertificateFacts], anchor: CertificateFacts?, anchorKind: String?,
                     evaluatedAt: Date, fetchedIssuers: [FetchedIssuer]?) {
            self.failures = failures
            self.chain = chain
            self.anchor = anchor
            self.anchorKind = anchorKind
            self.evaluatedAt = evaluatedAt
            self.fetchedIssuers = fetchedIssuers
        }
    }

    package init(run: RunInfo, host: String, judgement: Judgement, bundleOrder: String?, serverFixes: [ServerFix],
                 forecastWindow: ForecastWindowJSON?, forecast: [ForecastChangeJSON]?, renewal: RenewalJSON?) {
        self.run = run
        self.host = host
        self.judgement = judgement
        self.bundleOrder = bundleOrder
        self.serverFixes = serverFixes
        self.forecastWindow = forecastWindow
        self.forecast = forecast
        self.renewal = renewal
    }

    package enum CodingKeys: String, CodingKey { case schemaVersion, run, host, trusted, failures, chain, anchor, anchorKind, evaluatedAt, fetchedIssuers, bundleOrder, serverFixes, forecastWindow, forecast, renewal }

    package func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(schemaVersion, forKey: .schemaVersion)
        try container.encode(run, forKey: .run)
        try container.encode(host, forKey: .host)
        try container.encodeIfPresent(forecastWindow, forKey: .forecastWindow)
        try container.encodeIfPresent(forecast, forKey: .forecast)
        try container.encodeIfPresent(renewal, forKey: .renewal)
        try container.encode(judgement.trusted, forKey: .trusted)
        try container.encode(judgement.failures, forKey: .failures)
        try container.encode(judgement.chain, forKey: .chain)
        try container.encodeIfPresent(judgement.anchor, forKey: .anchor)
        try container.encodeIfPresent(judgement.anchorKind, forKey: .anchorKind)
        try container.encode(judgement.evaluatedAt, forKey: .evaluatedAt)
        try container.encodeIfPresent(judgement.fetchedIssuers, forKey: .fetchedIssuers)
        try container.encodeIfPresent(bundleOrder, forKey: .bundleOrder)
        try container.encode(serverFixes, forKey: .serverFixes)
    }
}

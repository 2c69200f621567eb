import ATSContract
import ATSTrust

// `cert`'s document (ATSContract's CertReport) written from ATSTrust's ChainJudgement: the one
// place a judged chain becomes the JSON and the text's input, with its server fixes
// (CertAdvice) and its forecast (ForecastFields).

extension CertReport {
    package init(run: RunInfo, host: String, judgement: ChainJudgement, bundleOrder: String? = nil, forecast: TargetForecast? = nil) {
        let failures = judgement.failures.map {
            Judgement.Failure(rule: $0.rule, certificateIndex: $0.certificateIndex, reason: $0.reason, source: $0.source, fix: $0.fix)
        }
        let document = Judgement(failures: failures, chain: judgement.chain, anchor: judgement.anchor, anchorKind: judgement.anchorKind?.rawValue,
                                 evaluatedAt: judgement.evaluatedAt, fetchedIssuers: judgement.fetchedIssuers)
        let fields = ForecastFields(forecast)
        self.init(run: run, host: host, judgement: document, bundleOrder: bundleOrder,
                  serverFixes: CertAdvice.fixes(judgement, host: host, order: bundleOrder),
                  forecastWindow: fields.window, forecast: fields.changes, renewal: fields.renewal)
    }
}

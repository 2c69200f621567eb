import ATSReport
import ATSEngine

/// nscurl-style text's FORECAST lines (`diagnose --forecast`), worded as every report words them
/// (`ForecastText` over the record's JSON fields: one wording for every sink).
enum DiagnosticsForecastText {
    static func lines(_ report: DiagnosticsReport) -> String {
        guard let forecast = report.forecast else { return "" }
        let fields = ForecastFields(forecast)
        return ForecastText.lines(window: fields.window, changes: fields.changes, renewal: fields.renewal)
            .map { "FORECAST   : \(ReportEscaping.text($0))\n" }.joined()
    }
}

import ATSReport

/// nscurl-style text's FORECAST lines (`diagnose --forecast`), worded as every report words them
/// (`ForecastText` over the document's forecast fields: one wording for every sink).
enum DiagnosticsForecastText {
    static func lines(_ document: DiagnosticsJSON) -> String {
        ForecastText.lines(window: document.forecastWindow, changes: document.forecast, renewal: document.renewal)
            .map { "FORECAST   : \(ReportEscaping.text($0))\n" }.joined()
    }
}

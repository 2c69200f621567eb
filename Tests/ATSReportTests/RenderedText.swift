import ATSReport

extension Report {
    /// The report in `format` through its registry (`Report.outputs`), as text: what the
    /// command line writes for `--format`. The report formats here do not throw.
    func render(_ format: OutputFormat, verbose: Bool, junitCases: ReportJUnit.Cases = .targets,
                metricsLabels: MetricsLabels = MetricsLabels()) -> String {
        (try? rendered(format, options: RenderOptions(verbose: verbose, junitCases: junitCases, metricsLabels: metricsLabels)).text) ?? "<no rendering>"
    }
}

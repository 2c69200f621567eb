import ArgumentParser
import ATSFiles
import ATSReport

/// `--metrics-label NAME=VALUE` (audit, report): labels added to every series of
/// `--format openmetrics` and `--format prometheus`, so two runs' files in one textfile
/// directory never hold the same series (docs/monitoring.md).
struct MetricsOptions: ParsableArguments {
    @Option(name: .customLong("metrics-label"),
            help: ArgumentHelp("openmetrics, prometheus: add the label NAME=VALUE to every series (e.g. run=nightly); repeatable.", valueName: "name=value"))
    var metricsLabel: [String] = []

    /// The labels, checked (a bad one: one line naming it, exit 64); an error too when given
    /// with a format that writes no metrics, where they would be silently lost.
    func labels(format: OutputFormat) throws -> MetricsLabels {
        guard !metricsLabel.isEmpty else { return MetricsLabels() }
        guard format == .openmetrics || format == .prometheus else {
            throw InputError(.badArgument, "--metrics-label is for --format openmetrics or prometheus, not \(format.rawValue)")
        }
        do {
            return try MetricsLabels(parsing: metricsLabel)
        } catch {
            throw InputError(.badArgument, error.message)
        }
    }
}

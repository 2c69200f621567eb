/// Every output format atsprobe writes, named as its `--format` value. The one format type: each
/// command's result declares which of them it renders (`RenderedResult.outputs`), and the command
/// line parses, lists (help, completions, the man page) and documents exactly those.
public enum OutputFormat: String, CaseIterable, Sendable {
    case text, json, plist, html, csv, markdown
    /// clang-style `path:line:col: warning: message [rule]` lines, for an Xcode build phase.
    case xcode
    /// SARIF 2.1.0, for code scanning (GitHub and other SARIF readers).
    case sarif
    /// JUnit XML, for CI test reports (Jenkins, GitLab).
    case junit
    /// OpenMetrics 1.0, for a monitoring system (docs/monitoring.md).
    case openmetrics
    /// Prometheus' text exposition 0.0.4, for node_exporter's textfile collector (docs/monitoring.md).
    case prometheus
}

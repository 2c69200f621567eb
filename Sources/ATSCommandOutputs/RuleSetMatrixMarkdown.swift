import ATSReport
/// `diagnose --rules all --format markdown`: a GitHub-flavoured table per target (tests down,
/// rule sets across), the default connection's verdict per rule set and what the host needs
/// under each, for a ticket or a pull-request comment. Text from the input or the network is
/// in code spans so nothing in it is live Markdown (ReportEscaping.markdown).
package enum RuleSetMatrixMarkdown {
    package static func render(_ grids: [RuleSetMatrixGrid], run: RunInfo?) -> String {
        var out = "# Which releases accept each target\n\n"
        if let run {
            out += RuleSetMatrixHTML.metadata(run).map { "- **\($0.0):** \(md($0.1))\n" }.joined() + "\n"
        }
        for grid in grids {
            out += "## \(md(grid.target))\n\n"
            out += "nscurl's tests under \(grid.ruleSets.count) rule sets, \(grid.handshakes) handshake\(grid.handshakes == 1 ? "" : "s").\n\n"
            // Each column headed by its id and the releases it stands for; Apple's documentation last, apart.
            out += "| Test | " + grid.columns.map { "\(cell($0.ruleSet))<br>\(cell($0.header))" }.joined(separator: " | ") + " |\n"
            out += "|---|" + String(repeating: ":-:|", count: grid.ruleSets.count) + "\n"
            var section = ""
            for row in grid.rows {
                if row.section != section {
                    section = row.section
                    out += "| **\(cell(section))** |" + String(repeating: " |", count: grid.ruleSets.count) + "\n"
                }
                let cells = grid.ruleSets.indices.map { column -> String in
                    switch column < row.passed.count ? row.passed[column] : nil {
                    case true?: "✓ PASS"
                    case false?: "✗ FAIL"
                    case nil: "—"
                    }
                }
                out += "| \(cell(row.title)) | " + cells.joined(separator: " | ") + " |\n"
            }
            out += "\n**Default ATS connection:** \(md(grid.defaultSummary))\n\n"
            for (column, needs) in zip(grid.columns, grid.needs) {
                out += "- \(md(column.ruleSet)) (\(md(column.releases ?? column.header))): \(md(needs))\n"
            }
            if grid.hasForecast {
                out += "\n**Forecast, by rule set:**\n\n"
                for (column, lines) in zip(grid.columns, grid.forecasts) {
                    for line in lines { out += "- \(md(column.ruleSet)): \(md(line))\n" }
                }
            }
            out += "\n"
        }
        return out
    }

    static func md(_ text: String) -> String { ReportEscaping.markdown(text) }

    static func cell(_ text: String) -> String { ReportEscaping.markdownCell(text) }
}

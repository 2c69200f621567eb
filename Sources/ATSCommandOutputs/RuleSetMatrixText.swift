import ATSReport
import TLSFacts

/// `diagnose --rules all` as text: one grid per target, nscurl's tests down, rule sets across in
/// release order, each headed by its id and the releases it stands for, Apple's documentation
/// apart after a bar; so a developer sees "passes on iOS 13 - 15.3, fails on iOS 15.4 - 18" at a
/// glance. Then the default connection's verdict by release and what the host needs under each.
package enum RuleSetMatrixText {
    package static func render(_ grid: RuleSetMatrixGrid, palette: Palette) -> String {
        let columns = grid.columns
        let titleWidth = max(44, grid.rows.map { $0.title.count + 4 }.max() ?? 0)
        let widths = columns.map { max($0.ruleSet.count, $0.header.count, 4) + 2 }
        // Apple's documentation is no release: a bar sets it apart from the releases' columns.
        let firstDocumentation = columns.firstIndex { !$0.isRelease }.flatMap { $0 > 0 ? $0 : nil }
        func cells(_ words: [String], colour: (Int, String) -> String = { $1 }) -> String {
            var line = ""
            for (column, word) in words.enumerated() {
                if column == firstDocumentation { line += "| " }
                line += colour(column, word)
                // The last column is not padded, so no line ends in spaces.
                if column < words.count - 1 { line += String(repeating: " ", count: max(0, widths[column] - word.count)) }
            }
            return line
        }
        var out = "\(ReportEscaping.text(grid.target, limit: 300)): nscurl's tests under \(columns.count) rule sets, "
            + "\(grid.handshakes) handshake\(grid.handshakes == 1 ? "" : "s")\n"
        out += pad("", titleWidth) + cells(columns.map(\.ruleSet)) + "\n"
        out += pad("", titleWidth) + cells(columns.map(\.header)) + "\n"
        var section = ""
        for row in grid.rows {
            if row.section != section {
                section = row.section
                out += section + "\n"
            }
            let words = columns.indices.map { column in
                column < row.passed.count && row.passed[column] == true ? "PASS" : "FAIL"
            }
            out += pad("  " + row.title, titleWidth) + cells(words) { _, word in word == "PASS" ? palette.pass(word) : palette.fail(word) } + "\n"
        }
        out += "\nDefault ATS connection: " + grid.defaultSummary + "\n"
        for (column, needs) in zip(columns, grid.needs) {
            let releases = column.releases ?? column.header
            out += "  \(column.ruleSet) (\(releases)): \(ReportEscaping.text(needs, limit: 4000))\n"
        }
        // --forecast: each rule set's own forecast (when its verdict changes), worded as diagnose's FORECAST lines.
        if grid.hasForecast {
            out += "Forecast, by rule set:\n"
            for (column, lines) in zip(columns, grid.forecasts) {
                for line in lines { out += "  \(column.ruleSet): FORECAST \(ReportEscaping.text(line))\n" }
            }
        }
        return out
    }

    /// Left-aligned in a column `width` characters wide (never cut).
    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}

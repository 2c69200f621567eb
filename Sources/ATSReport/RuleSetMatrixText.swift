import TLSFacts

/// `diagnose --rules all` as text: one grid per target, nscurl's tests down, rule sets across,
/// so a developer sees "passes on ios26, fails on ios16" at a glance; then the default
/// connection's verdict per rule set and what the host needs under each.
public enum RuleSetMatrixText {
    public static func render(_ grid: RuleSetMatrixGrid, palette: Palette) -> String {
        let ids = grid.ruleSets
        let titleWidth = max(44, grid.rows.map { $0.title.count + 4 }.max() ?? 0)
        let widths = ids.map { max($0.count, 4) + 2 }
        var out = "\(ReportEscaping.text(grid.target, limit: 300)): nscurl's tests under \(ids.count) rule sets, "
            + "\(grid.handshakes) handshake\(grid.handshakes == 1 ? "" : "s")\n"
        // The last column is not padded, so no line ends in spaces.
        out += pad("", titleWidth)
            + zip(ids, widths).enumerated().map { $0.offset == ids.count - 1 ? $0.element.0 : pad($0.element.0, $0.element.1) }.joined() + "\n"
        var section = ""
        for row in grid.rows {
            if row.section != section {
                section = row.section
                out += section + "\n"
            }
            out += pad("  " + row.title, titleWidth)
            for (column, width) in widths.enumerated() {
                let passed = column < row.passed.count && row.passed[column] == true
                let word = passed ? "PASS" : "FAIL"
                out += passed ? palette.pass(word) : palette.fail(word)
                if column < ids.count - 1 { out += String(repeating: " ", count: max(0, width - word.count)) }
            }
            out += "\n"
        }
        out += "\nDefault ATS connection: " + grid.defaultSummary + "\n"
        for (id, needs) in zip(ids, grid.needs) {
            out += "  \(id): \(ReportEscaping.text(needs, limit: 4000))\n"
        }
        return out
    }

    /// Left-aligned in a column `width` characters wide (never cut).
    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}

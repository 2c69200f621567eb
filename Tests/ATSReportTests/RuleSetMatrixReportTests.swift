import ATSCommandOutputs
import ATSReport
import Foundation
import Testing

/// `diagnose --rules all` in every format, rendered from one grid without a network: golden
/// outputs compared whole (ATSPROBE_UPDATE_GOLDEN=1 rewrites them), and a hostile target and
/// reason that must not escape their cell, line or tag in any format.
@Suite struct RuleSetMatrixReportTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
    static let ruleSets = ["ios13", "ios15.4", "ios26", "documented"]

    /// Two targets: one that passes under two rule sets of four, and a hostile one whose name
    /// and reason carry a newline, HTML, Markdown, a CSV formula and a bidi override.
    static let grids: [RuleSetMatrixGrid] = [
        RuleSetMatrixGrid(
            target: "https://matrix.test/", ruleSets: ruleSets, handshakes: 7,
            rows: [
                .init(section: "Default ATS Secure Connection", title: "ATS Default Connection", passed: [true, false, false, true]),
                .init(section: "Allowing Arbitrary Loads", title: "Allow All Loads", passed: [true, true, true, true]),
                .init(section: "Configuring TLS exceptions for matrix.test", title: "TLSv1.3", passed: [false, nil, false, false]),
            ],
            defaultPassesOn: ["ios13", "documented"], defaultFailsOn: ["ios15.4", "ios26"],
            needs: ["no exception needed", "needs NSExceptionRequiresForwardSecrecy = false",
                    "needs NSExceptionRequiresForwardSecrecy = false", "no exception needed"]),
        RuleSetMatrixGrid(
            target: "https://evil.test/<script>|`*[x](y)\n=cmd\u{202E}", ruleSets: ruleSets, handshakes: 1,
            rows: [.init(section: "Default ATS Secure Connection", title: "ATS Default Connection", passed: [false, false, false, false])],
            defaultPassesOn: [], defaultFailsOn: ruleSets,
            needs: Array(repeating: "no exception helps: <b>\"x\"</b>,=1+1\r\n| cell", count: 4)),
    ]

    static let run = RunInfo(toolVersion: "9.9.9", openSSLVersion: "OpenSSL 3.0.0", ruleSet: "all",
                             trustStore: "Apple's root store", ctLogList: "built in", startedAt: Date(timeIntervalSince1970: 1_767_225_600))

    static func compare(_ output: String, golden name: String) throws {
        let file = directory.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["ATSPROBE_UPDATE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(output.utf8).write(to: file)
        }
        let golden = try String(contentsOf: file, encoding: .utf8)
        #expect(output == golden, "output differs from \(file.path); diff it against a run with ATSPROBE_UPDATE_GOLDEN=1")
    }

    @Test func textGolden() throws {
        try Self.compare(Self.grids.map { RuleSetMatrixText.render($0, palette: Palette(enabled: false)) }.joined(separator: "\n"),
                         golden: "rule-set-matrix.txt")
    }

    @Test func htmlGolden() throws {
        try Self.compare(RuleSetMatrixHTML.render(Self.grids, run: Self.run), golden: "rule-set-matrix.html")
    }

    @Test func csvGolden() throws {
        try Self.compare(RuleSetMatrixCSV.render(Self.grids), golden: "rule-set-matrix.csv")
    }

    @Test func jsonGolden() throws {
        let documents = Self.grids.map { RuleSetMatrixJSON($0, reports: []) }
        let data = try JSONEncoder.atsprobe().encode(documents)
        try Self.compare(String(decoding: data, as: UTF8.self) + "\n", golden: "rule-set-matrix.json")
    }

    /// Columns in release order, each headed by its releases, no two claiming one release, Apple's
    /// documentation apart; the summary names releases, not ids alone.
    @Test func columnsReadAsReleases() throws {
        let grid = Self.grids[0]
        #expect(grid.columns.map(\.header) == ["iOS 13 - 15.3", "iOS 15.4 - 16", "iOS 26 and later", "Apple's documentation"])
        #expect(grid.columns.map(\.isRelease) == [true, true, true, false])
        #expect(grid.defaultSummary == "passes on iOS 13 - 15.3 (ios13); fails on iOS 15.4 - 16 (ios15.4), iOS 26 and later (ios26); "
            + "Apple's documentation (documented): passes")
        let text = RuleSetMatrixText.render(grid, palette: Palette(enabled: false))
        #expect(text.contains("iOS 13 - 15.3  iOS 15.4 - 16  iOS 26 and later  | Apple's documentation\n"), "\(text)")
        #expect(text.contains("  ios13 (iOS 13 - 15.3, macOS 10.15 - 12.2): no exception needed\n"), "\(text)")
        let csvHeader = RuleSetMatrixCSV.render([grid]).components(separatedBy: "\r\n")[0]
        #expect(csvHeader.contains("ios15.4 (iOS 15.4 - 16, macOS 12.3 - 13)"), "\(csvHeader)")
    }

    /// A long reason is cut after a whole word, never inside one.
    @Test func longReasonsAreCutAtWords() {
        let reason = String(repeating: "certificate ", count: 40)
        let cut = RuleSetMatrixGrid.clipped(reason, limit: 300)
        #expect(cut.count <= 301)
        #expect(cut.hasSuffix("certificate…"), "\(cut)")
        #expect(RuleSetMatrixGrid.clipped("short", limit: 300) == "short")
    }

    @Test func markdownGolden() throws {
        try Self.compare(RuleSetMatrixMarkdown.render(Self.grids, run: Self.run), golden: "rule-set-matrix.md")
    }

    /// The hostile target and reason, format by format: no raw newline, tag, cell break or
    /// formula survives.
    @Test func untrustedTextIsEscapedInEveryFormat() {
        let text = RuleSetMatrixText.render(Self.grids[1], palette: Palette(enabled: false))
        #expect(text.hasPrefix("https://evil.test/<script>|`*[x](y)\\x0A=cmd\\u{202E}: nscurl's tests"))
        #expect(!text.contains("\u{202E}") && !text.contains("\r"))

        let html = RuleSetMatrixHTML.render([Self.grids[1]], run: nil)
        #expect(!html.contains("<script>") && !html.contains("<b>"))
        #expect(html.contains("<h2>https://evil.test/&lt;script&gt;|`*[x](y)\\x0A=cmd\\u{202E}</h2>"))

        let csv = RuleSetMatrixCSV.render([Self.grids[1]])
        let rows = csv.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(rows.count == 3, "\(rows)")
        #expect(rows[2].contains(#""no exception helps: <b>""x""</b>,=1+1\x0D\x0A| cell""#), "\(rows[2])")

        let markdown = RuleSetMatrixMarkdown.render([Self.grids[1]], run: nil)
        // A code span (issue 42): its fence longer than the backtick inside, the visible escapes as typed.
        #expect(markdown.contains(#"## ``https://evil.test/<script>|`*[x](y)\x0A=cmd\u{202E}``"# + "\n"), "\(markdown)")
        // Every table line has the same number of unescaped pipes: no cell was split.
        let tableLines = markdown.split(separator: "\n").filter { $0.hasPrefix("|") }
        let pipes = tableLines.map { line in zip(line, line.dropFirst()).filter { $0.1 == "|" && $0.0 != "\\" }.count + 1 }
        #expect(Set(pipes).count == 1, "\(tableLines)")
    }
}

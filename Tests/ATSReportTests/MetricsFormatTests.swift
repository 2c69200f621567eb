import Foundation
import Testing
import ATSReport
import TestSupport

/// `--format openmetrics` and `--format prometheus`: one renderer, two dialects (issue 41 item 6,
/// issue 40 item 6). OpenMetrics read by prometheus_client's OpenMetrics parser (strict: `# EOF`,
/// UNIT against the name), the 0.0.4 text by its text parser and `promtool check metrics`; in both,
/// one series per target (no series written twice), whatever the records repeat.
@Suite("Metrics formats")
struct MetricsFormatTests {
    static let run = RunInfo(toolVersion: "0.1.0", openSSLVersion: "OpenSSL 3", ruleSet: "ios26", trustStore: nil, ctLogList: nil,
                             startedAt: Date(timeIntervalSince1970: 1_795_000_000))

    /// The records of a real audit (Records/audit.jsonl: every verdict).
    static func auditRecords() throws -> [AuditRecord] {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Records/audit.jsonl")
        return try ReportReader.records(from: Array(try Data(contentsOf: path)), name: "audit.jsonl")
    }

    /// Records that name targets alike: the passing target twice, a bad line twice, two URLs equal
    /// in their first 300 characters, and a bell beside the text `\x07` (both escape to `\x07`).
    static func repeatingRecords() throws -> [AuditRecord] {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Records/audit.jsonl")
        let lines = try String(contentsOf: path, encoding: .utf8).split(separator: "\n").map(String.init)
        let passing = try #require(lines.first { $0.contains(#""input":"https://127.0.0.1:40943""#) })
        let long = "https://127.0.0.1:40943/" + String(repeating: "a", count: 300)
        let text = ([passing] + lines + [passing.replacingOccurrences(of: "https://127.0.0.1:40943", with: long + "1"),
                                         passing.replacingOccurrences(of: "https://127.0.0.1:40943", with: long + "2")]).joined(separator: "\n")
        var records = try ReportReader.records(from: Array(text.utf8), name: "repeated.jsonl")
        for (line, input) in [(20, "bad \u{07} line"), (21, "bad \\x07 line"), (22, "bad \u{07} line")] {
            records.append(.failed("not a target", entry: .init(input: input, line: line), run: Self.run,
                                   finishedAt: Date(timeIntervalSince1970: 1_795_000_060)))
        }
        return records
    }

    static func expectValid(_ text: String, _ dialect: ExpositionCheck.Dialect, series expected: Int? = nil,
                            sourceLocation: SourceLocation = #_sourceLocation) async throws {
        switch try await ExpositionCheck.check(text, dialect: dialect) {
        case .valid(let series):
            if let expected { #expect(series == expected, sourceLocation: sourceLocation) }
        case .invalid(let message):
            Issue.record("prometheus_client (\(dialect.rawValue)): \(message)\n\(text)", sourceLocation: sourceLocation)
        case .unavailable(let message):
            _ = try RequiredTool.condition(false, message, for: "MetricsFormatTests: prometheus_client (\(dialect.rawValue))")
        }
    }

    static func promtool() throws -> String? {
        try RequiredTool.executable(["/usr/bin/promtool"], install: "apt-get install prometheus", for: "MetricsFormatTests: promtool check metrics")
    }

    /// Sample lines (no comment) of `text`.
    static func samples(_ text: String) -> [Substring] { text.split(separator: "\n").filter { !$0.hasPrefix("#") } }

    @Test func openMetricsIsOpenMetrics() async throws {
        let text = Report(try Self.auditRecords()).render(.openmetrics, verbose: false)
        #expect(text.hasSuffix("\n# EOF\n"), "\(text.suffix(200))")
        #expect(text.contains("# TYPE atsprobe_target_duration_seconds gauge\n# UNIT atsprobe_target_duration_seconds seconds\n"))
        #expect(text.contains("# UNIT atsprobe_run_start_timestamp_seconds seconds\n"))
        #expect(!text.contains("# UNIT atsprobe_target_verdict"))
        try await Self.expectValid(text, .openMetrics)
        // A file cut short is refused: the parser is strict about # EOF.
        if case .valid = try await ExpositionCheck.check(String(text.dropLast("# EOF\n".count)), dialect: .openMetrics) {
            Issue.record("prometheus_client took OpenMetrics without # EOF")
        }
    }

    /// The same families, names, labels and values; only the OpenMetrics lines differ.
    @Test func prometheusIsTheTextNodeExporterReads() async throws {
        let report = Report(try Self.auditRecords())
        let text = report.render(.prometheus, verbose: false)
        let openMetrics = report.render(.openmetrics, verbose: false)
        #expect(!text.contains("# EOF") && !text.contains("# UNIT"))
        #expect(text == openMetrics.split(separator: "\n").filter { !$0.hasPrefix("# UNIT ") && $0 != "# EOF" }.map { $0 + "\n" }.joined())
        try await Self.expectValid(text, .prometheus)
        guard let promtool = try Self.promtool() else { return }
        let check = try await ChildProcess.run(promtool, ["check", "metrics"], stdin: text, timeout: 60)
        #expect(check.status == 0 && check.stdout.isEmpty && check.stderr.isEmpty, "\(check.stdout)\(check.stderr)")
    }

    /// Issue 40 item 6: a target twice, a bad line twice, two URLs equal in their first 300
    /// characters, and two names that escape alike each give one series, never two alike.
    @Test func oneSeriesPerTarget() async throws {
        let records = try Self.repeatingRecords()
        let distinct = Set(records.map(\.name)).count
        #expect(distinct < records.count)
        for format in [OutputFormat.openmetrics, .prometheus] {
            let text = Report(records).render(format, verbose: false)
            let verdictLines = Self.samples(text).filter { $0.hasPrefix("atsprobe_target_verdict{") }
            #expect(Set(verdictLines.map { $0.split(separator: " ").dropLast().joined(separator: " ") }).count == verdictLines.count,
                    "a series written twice")
            #expect(verdictLines.count == distinct * 6, "\(format): \(verdictLines.count) for \(distinct) targets")
            // The long URLs: cut at 300 characters, each with its own hash suffix.
            let long = verdictLines.filter { $0.contains("…#") && $0.hasSuffix("verdict=\"pass\"} 1") }
            #expect(long.count == 2, "\(long)")
            // The bell and the text \x07 read alike once escaped: told apart by a hash.
            let bells = verdictLines.filter { $0.contains("bad \\\\x07 line") && $0.contains("verdict=\"error\"") }
            #expect(bells.count == 2 && Set(bells).count == 2, "\(bells)")
            try await Self.expectValid(text, format == .openmetrics ? .openMetrics : .prometheus)
        }
    }

    @Test func metricsLabelsGoOnEverySeries() async throws {
        let labels = try MetricsLabels(parsing: ["run=nightly", "site=eu_1"])
        let text = Report(try Self.auditRecords()).render(.openmetrics, verbose: false, metricsLabels: labels)
        let samples = Self.samples(text)
        #expect(!samples.isEmpty && samples.allSatisfy { $0.contains("{run=\"nightly\",site=\"eu_1\"") }, "\(text)")
        #expect(text.contains("atsprobe_run_handshakes{run=\"nightly\",site=\"eu_1\"} "))
        try await Self.expectValid(text, .openMetrics)
    }

    @Test(arguments: [
        ("run", "is not NAME=VALUE"), ("1run=x", "the name must be"), ("r-un=x", "the name must be"), ("__name__=x", "Prometheus' own"),
        ("target=x", "a label atsprobe writes itself"), ("run=", "1 to 128 characters"), ("run=a\u{07}", "control or bidi"),
        ("run=\(String(repeating: "x", count: 129))", "1 to 128 characters"),
    ])
    func aBadMetricsLabelIsRefused(argument: String, message: String) {
        #expect {
            try MetricsLabels(parsing: [argument])
        } throws: { error in
            "\(error)".contains(message) && "\(error)".hasPrefix("--metrics-label '") && !"\(error)".contains("\u{07}")
        }
        #expect(throws: MetricsLabelError.self) { try MetricsLabels(parsing: ["run=a", "run=b"]) }
    }
}

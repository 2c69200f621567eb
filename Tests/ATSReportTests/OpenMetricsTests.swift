import Foundation
import Testing
import ATSReport
import TestSupport

/// `--format openmetrics` over records whose names are hostile (an input line is untrusted text):
/// each label value escaped as Prometheus' text format asks, and the whole accepted by
/// `promtool check metrics` (a missing promtool fails under CI: RequiredTool).
@Suite("OpenMetrics")
struct OpenMetricsTests {
    static let run = RunInfo(toolVersion: "0.1.0", openSSLVersion: "OpenSSL 3", ruleSet: "ios26", trustStore: nil, ctLogList: nil,
                             startedAt: Date(timeIntervalSince1970: 1_795_000_000))

    @Test func hostileNamesAreEscapedAndPromtoolAcceptsTheOutput() async throws {
        let names = ["bad \"quoted\" line", "back\\slash", "bidi \u{202E}txt.exe", "control \u{07} bell"]
        let records = names.enumerated().map { index, name in
            AuditRecord.failed("not a target", entry: .init(input: name, line: index + 1), run: Self.run,
                               finishedAt: Date(timeIntervalSince1970: 1_795_000_060))
        }
        let text = Report(records).render(.openmetrics, verbose: false)
        #expect(text.contains(#"atsprobe_target_verdict{target="bad \"quoted\" line",verdict="error"} 1"#), "\(text)")
        #expect(text.contains(#"atsprobe_target_verdict{target="back\\slash",verdict="error"} 1"#))
        #expect(!text.contains("\u{202E}") && !text.contains("\u{07}"))
        #expect(text.contains("atsprobe_run_targets{verdict=\"error\"} 4\n"))
        #expect(text.contains("atsprobe_run_start_timestamp_seconds 1795000000\n"))
        #expect(text.contains("atsprobe_run_end_timestamp_seconds 1795000060\n"))
        guard let promtool = try Self.promtool() else { return }
        let check = try await ChildProcess.run(promtool, ["check", "metrics"], stdin: text, timeout: 60)
        #expect(check.status == 0 && check.stdout.isEmpty && check.stderr.isEmpty, "\(check.stdout)\(check.stderr)")
    }

    @Test func anEmptyRunIsStillValid() async throws {
        let text = Report([]).render(.openmetrics, verbose: false)
        #expect(text.contains("atsprobe_run_handshakes 0\n"))
        guard let promtool = try Self.promtool() else { return }
        let check = try await ChildProcess.run(promtool, ["check", "metrics"], stdin: text, timeout: 60)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    }

    static func promtool() throws -> String? {
        try RequiredTool.executable(["/usr/bin/promtool"], install: "apt-get install prometheus", for: "OpenMetricsTests: promtool check metrics")
    }
}

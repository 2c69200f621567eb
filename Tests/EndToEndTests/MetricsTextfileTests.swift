import ATSTestServers
import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The metrics files as their reader takes them: Debian's node_exporter (prometheus-node-exporter)
/// with its textfile collector over a directory holding two runs' files, started on a free
/// loopback port and scraped. node_exporter drops a series it reads twice and says so only in its
/// log ("collected before with the same name and label values"), which `promtool check metrics`
/// does not notice; so the test reads node_exporter's log after the scrape (issue 40 item 6,
/// issue 41 item 6). Also: an unreachable target's forecast reads "unknown", not "no change".
@Suite("Metrics through node_exporter")
struct MetricsTextfileTests {
    static let nodeExporter = "/usr/bin/prometheus-node-exporter"

    /// The inputs repeating one target: a bad line twice, and two URLs equal in their first 300
    /// characters. (The same URL on two lines is refused at the second since issue 42: a bad line.)
    static func repeatingInput(_ url: String) -> String {
        let long = url + String(repeating: "a", count: 300)
        return [url, "not a url ::", "not a url ::", long + "1", long + "2"].joined(separator: "\n") + "\n"
    }

    @Test func nodeExporterReadsTwoRunsOneSeriesPerTarget() async throws {
        guard try RequiredTool.executable([Self.nodeExporter], install: "apt-get install prometheus-node-exporter",
                                          for: "MetricsTextfileTests: node_exporter's textfile collector") != nil else { return }
        try await ForecastCommandTests.withServer { common, url in
            try await withTemporaryDirectory { directory in
                let input = try directory.write("targets.txt", Self.repeatingInput(url))
                let records = directory.path("records.jsonl")
                let textfiles = directory.path("textfile")
                try FileManager.default.createDirectory(atPath: textfiles, withIntermediateDirectories: false)
                // The nightly run writes the 0.0.4 text; the weekly one is a report of a records file
                // holding every target twice, in OpenMetrics (node_exporter reads both).
                let audit = try await BinaryRunner.run(["audit", "--quiet", "--forecast", "90d", "--fail-on", "none", "--input", input,
                                                        "--records", records, "--format", "prometheus", "--metrics-label", "run=nightly",
                                                        "--output", textfiles + "/nightly.prom"] + common)
                #expect(audit.status == 0, "\(audit.stderr)")  // --fail-on none
                let doubled = try directory.write("doubled.jsonl", String(decoding: try Data(contentsOf: URL(fileURLWithPath: records)), as: UTF8.self)
                                                  + String(decoding: try Data(contentsOf: URL(fileURLWithPath: records)), as: UTF8.self))
                let report = try await BinaryRunner.run(["report", doubled, "--quiet", "--format", "openmetrics", "--metrics-label", "run=weekly",
                                                         "--output", textfiles + "/weekly.prom"])
                #expect(report.status == 64, "\(report.stderr)")
                let (scrape, log) = try await Self.scrape(textfiles)
                #expect(!log.contains("level=error"), "node_exporter: \(log)")
                #expect(scrape.contains("\nnode_textfile_scrape_error 0\n"), "\(scrape)")
                for run in ["nightly", "weekly"] {
                    #expect(scrape.contains("atsprobe_run_handshakes{run=\"\(run)\"} "), "\(run): \(scrape)")
                    // Four targets: the URL, the bad line, the two long URLs (node_exporter sorts the labels).
                    let verdicts = scrape.split(separator: "\n").filter { $0.hasPrefix("atsprobe_target_verdict{run=\"\(run)\",") && $0.hasSuffix(" 1") }
                    #expect(verdicts.count == 4, "\(run): \(verdicts)")
                }
                #expect(scrape.contains("atsprobe_target_forecast_worse_timestamp_seconds{cause=\"intermediate-expires\",run=\"nightly\",target=\"\(url)\"} 1.781913601e+09"),
                        "\(scrape)")

                // Without --metrics-label the two runs' series collide, and node_exporter says so:
                // what the check above would catch.
                let unlabelled = directory.path("unlabelled")
                try FileManager.default.createDirectory(atPath: unlabelled, withIntermediateDirectories: false)
                for name in ["a", "b"] {
                    let run = try await BinaryRunner.run(["report", records, "--quiet", "--format", "prometheus", "--output", "\(unlabelled)/\(name).prom"])
                    #expect(run.status == 64)
                }
                let (_, collidingLog) = try await Self.scrape(unlabelled)
                #expect(collidingLog.contains("collected before with the same name and label values"), "node_exporter: \(collidingLog)")
            }
        }
    }

    /// Issue 41: an unreachable target's forecast is unknown (it read "no change within 90d"), and
    /// it has no forecast series.
    @Test func anUnreachableTargetsForecastIsUnknown() async throws {
        let port = try Self.freeLoopbackPort()  // closed again: a connection is refused
        let url = "https://127.0.0.1:\(port)/"
        let text = try await BinaryRunner.run(["audit", "--quiet", "--forecast", "90d", url])
        #expect(text.status == 2, "\(text.stderr)")
        #expect(!text.stdout.contains("no change within"), "\(text.stdout)")
        #expect(text.stdout.contains("    FORECAST unknown: the target could not be judged (unreachable), so nothing is forecast\n"), "\(text.stdout)")
        let metrics = try await BinaryRunner.run(["audit", "--quiet", "--forecast", "90d", "--format", "openmetrics", url])
        #expect(metrics.stdout.contains("atsprobe_target_verdict{target=\"\(url)\",verdict=\"unreachable\"} 1\n"), "\(metrics.stdout)")
        #expect(!metrics.stdout.contains("atsprobe_target_forecast_"), "\(metrics.stdout)")
        let csv = try await BinaryRunner.run(["audit", "--quiet", "--forecast", "90d", "--format", "csv", url])
        #expect(csv.stdout.split(separator: "\r\n").last?.hasSuffix(",,unknown,,") == true, "\(csv.stdout)")
    }

    /// docs/examples/atsprobe-alerts.yml under `promtool test rules`: the absent() rule fires when
    /// the file is missing (every other rule is silent then), the stale rule when the audit stopped.
    @Test func theAlertRulesFireAsTheDocsSay() async throws {
        guard try RequiredTool.executable(["/usr/bin/promtool"], install: "apt-get install prometheus",
                                          for: "MetricsTextfileTests: promtool test rules") != nil else { return }
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/examples")
        let check = try await ChildProcess.run("/usr/bin/promtool", ["test", "rules", examples.appendingPathComponent("atsprobe-alerts.test.yml").path],
                                               timeout: 60)
        #expect(check.status == 0 && check.stdout.contains("SUCCESS"), "\(check.stdout)\(check.stderr)")
        let rules = try String(contentsOf: examples.appendingPathComponent("atsprobe-alerts.yml"), encoding: .utf8)
        #expect(rules.contains("expr: absent(atsprobe_run_end_timestamp_seconds)"))
    }

    /// `--metrics-label` is checked: one line naming the argument, exit 64.
    @Test func aBadMetricsLabelExits64() async throws {
        let bad = try await BinaryRunner.run(["report", "/dev/null", "--format", "prometheus", "--metrics-label", "bad name=x"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--metrics-label 'bad name=x': the name must be"), "\(bad.stderr)")
        let wrongFormat = try await BinaryRunner.run(["report", "/dev/null", "--format", "csv", "--metrics-label", "run=x"])
        #expect(wrongFormat.status == 64)
        #expect(wrongFormat.stderr.contains("--metrics-label is for --format openmetrics or prometheus"), "\(wrongFormat.stderr)")
    }

    /// node_exporter with only its textfile collector on `directory`, on a free loopback port:
    /// its /metrics page, then (once it has stopped) its whole log.
    static func scrape(_ directory: String) async throws -> (page: String, log: String) {
        try await offCooperativePool {
            let port = try freeLoopbackPort()
            let process = try SpawnedProcess(nodeExporter, ["--collector.disable-defaults", "--collector.textfile",
                                                            "--collector.textfile.directory=\(directory)",
                                                            "--web.listen-address=127.0.0.1:\(port)"], environment: [:])
            defer {
                if process.status == nil { kill(process.pid, SIGTERM) }
                process.finish(within: 10)
            }
            guard process.stderrContains("msg=\"Listening on\"", within: 30) else {
                throw TextfileTestFailure("node_exporter did not start: \(String(decoding: process.stderr, as: UTF8.self))")
            }
            let page = try httpGet(port: port, path: "/metrics")
            kill(process.pid, SIGTERM)
            process.finish(within: 10)
            return (page, String(decoding: process.stderr, as: UTF8.self))
        }
    }

    /// A port free on 127.0.0.1 now: bound to port 0, read, closed.
    static func freeLoopbackPort() throws -> Int { try LoopbackSocket.freePort() }

    /// GET `path` over HTTP/1.0 from 127.0.0.1:`port`, every read bounded (10 s); the body.
    static func httpGet(port: Int, path: String) throws -> String {
        let fd = try LoopbackSocket.connect(port: port, timeoutSeconds: 10)
        defer { close(fd) }
        let request = Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == request.count else {
            throw TextfileTestFailure("send: \(String(cString: strerror(errno)))")
        }
        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while response.count < 64 << 20 {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw TextfileTestFailure("recv: \(String(cString: strerror(errno)))") }
            if count == 0 { break }
            response += chunk[..<count]
        }
        let text = String(decoding: response, as: UTF8.self)
        guard text.hasPrefix("HTTP/1.") && text.contains(" 200 "), let body = text.range(of: "\r\n\r\n") else {
            throw TextfileTestFailure("GET \(path): \(text.prefix(200))")
        }
        return String(text[body.upperBound...])
    }
}

struct TextfileTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

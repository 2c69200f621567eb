import ATSTestServers
import Foundation
import Testing
import TestSupport
import TLSFacts

/// `--forecast` and `--format openmetrics` through the binary: a chain whose intermediate expires
/// before its leaf, judged at a fixed `--at` so every date in the output is fixed; the forecast's
/// part of each format compared whole with its golden file (the certificates' fingerprints, made
/// at test time, masked); the metrics checked by `promtool check metrics`; the gate
/// `--fail-on expiring:DURATION`. Set ATSPROBE_UPDATE_GOLDEN=1 to rewrite the golden files.
@Suite("Forecast command")
struct ForecastCommandTests {
    static let golden = GoldenOutputTests.directory
    static let at = "2026-06-01T00:00:00Z"

    static func date(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    /// The renewal under the intermediate that ends 2026-06-20: it fails from the instant after.
    static let renewalLine = "renewal fails from 2026-06-20T00:00:01Z: renewal from this CA will fail on Apple devices: "
        + "'O=atsprobe tests,CN=Forecast Root Intermediate' has expired (judged at 2026-06-20T00:00:01Z): renew under a CA and root valid then"

    /// Leaf valid 2026-05-01 to 2026-07-01T12:00:00Z under an intermediate that ends 2026-06-20:
    /// judged on 2026-06-01, it passes and stops passing at 2026-06-20T00:00:01Z.
    static func withServer(_ body: (_ common: [String], _ url: String) async throws -> Void) async throws {
        try await withServer { common, url, _ in try await body(common, url) }
    }

    /// The same, also handing over the served chain as a PEM file (for `cert`).
    static func withServer(_ body: (_ common: [String], _ url: String, _ chainFile: String) async throws -> Void) async throws {
        let pki = try TestPKI(rootName: "Forecast Root", withIntermediate: true, intermediateNotAfter: date("2026-06-20T00:00:00Z"))
        let root = try pki.writeRootPEM()
        let identity = try pki.issue(CertificateSpec(commonName: "forecast.test", dnsNames: ["forecast.test"], ipAddresses: [],
                                                     notBefore: date("2026-05-01T00:00:00Z"), notAfter: date("2026-07-01T12:00:00Z")))
        let server = try TestTLSServer.start(TLSServerConfiguration(identity: identity))
        defer { server.stop() }
        let chainFile = ReportTests.temporaryPath(".pem")
        try Data(([identity.certificatePEM] + identity.chainPEM).joined().utf8).write(to: URL(fileURLWithPath: chainFile))
        defer { try? FileManager.default.removeItem(atPath: chainFile) }
        try await body(["--ca-file", root, "--connect-to", "forecast.test:443:127.0.0.1:\(server.port)", "--at", at], "https://forecast.test/", chainFile)
    }

    static func compare(_ text: String, golden name: String) throws {
        let file = golden.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["ATSPROBE_UPDATE_GOLDEN"] == "1" {
            try Data(text.utf8).write(to: file)
        }
        let expected = try String(contentsOf: file, encoding: .utf8)
        #expect(text == expected, "differs from \(file.path); diff it against a run with ATSPROBE_UPDATE_GOLDEN=1")
    }

    static func maskedFingerprints(_ text: String) -> String {
        text.replacingOccurrences(of: #"([0-9A-F]{2}:){31}[0-9A-F]{2}"#, with: "SHA256", options: .regularExpression)
    }

    @Test func diagnoseTextAndJSON() async throws {
        try await Self.withServer { common, url in
            let text = try await BinaryRunner.run(["diagnose", "--forecast", "90d"] + common + [url])
            #expect(text.status == 0, "\(text.stderr)")
            let lines = text.stdout.split(separator: "\n").filter { $0.hasPrefix("FORECAST") }.map { $0 + "\n" }.joined()
            try Self.compare(lines, golden: "forecast-diagnose.txt")

            let json = try await BinaryRunner.run(["diagnose", "--forecast", "90d", "--format", "json"] + common + [url])
            #expect(json.status == 0)
            let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            let part = ["forecastWindow": document["forecastWindow"] ?? NSNull(), "forecast": document["forecast"] ?? NSNull(),
                        "renewal": document["renewal"] ?? NSNull()]
            let data = try JSONSerialization.data(withJSONObject: part, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
            try Self.compare(Self.maskedFingerprints(String(decoding: data, as: UTF8.self)) + "\n", golden: "forecast-diagnose.json")

            // Without --forecast nothing changes: no field, no line.
            let plain = try await BinaryRunner.run(["diagnose", "--format", "json"] + common + [url])
            #expect(!plain.stdout.contains("forecastWindow") && !plain.stdout.contains("\"renewal\""))
            let plainText = try await BinaryRunner.run(["diagnose"] + common + [url])
            #expect(!plainText.stdout.contains("FORECAST"))
        }
    }

    @Test func auditReportsAndMetrics() async throws {
        try await Self.withServer { common, url in
            let records = ReportTests.temporaryPath(".jsonl")
            defer { try? FileManager.default.removeItem(atPath: records) }
            let audit = try await BinaryRunner.run(["audit", "--forecast", "90d", "--quiet", "--records", records] + common + [url])
            #expect(audit.status == 0, "\(audit.stderr)")
            #expect(audit.stdout.contains("    FORECAST 2026-06-20T00:00:01Z (in 19d): pass -> no-exception: intermediate"), "\(audit.stdout)")

            let html = try await BinaryRunner.run(["report", records, "--format", "html"])
            let section = try #require(html.stdout.range(of: #"<section id="forecast">[\s\S]*?</section>\n"#, options: .regularExpression))
            try Self.compare(String(html.stdout[section]), golden: "forecast-report.html")

            let markdown = try await BinaryRunner.run(["report", records, "--format", "markdown"])
            let part = try #require(markdown.stdout.range(of: #"\n## Forecast\n[\s\S]*?\n(?=\n## )"#, options: .regularExpression))
            try Self.compare(String(markdown.stdout[part]), golden: "forecast-report.md")

            let csv = try await BinaryRunner.run(["report", records, "--format", "csv"])
            #expect(csv.stdout.hasPrefix("input,line,url,host,port,verdict,exception_keys,reason,server_fix,default,"))
            #expect(csv.stdout.contains(",next_change_at,next_change_verdict,next_change_cause,renewal\r\n"))
            #expect(csv.stdout.contains(",2026-06-20T00:00:01Z,no-exception,\"intermediate 'O=atsprobe tests,CN=Forecast Root Intermediate' expires"), "\(csv.stdout)")

            let sarif = try await BinaryRunner.run(["report", records, "--format", "sarif"])
            #expect(sarif.stdout.contains("\"ruleId\" : \"forecast/worse\"") || sarif.stdout.contains("\"ruleId\":\"forecast/worse\""), "\(sarif.stdout)")
            let junit = try await BinaryRunner.run(["report", records, "--format", "junit"])
            #expect(junit.stdout.contains("<testcase name=\"forecast\""))
            #expect(junit.stdout.contains("WARNING: this target will load worse on Apple devices"))
            #expect(junit.stdout.contains("failures=\"0\""))

            let metrics = try await BinaryRunner.run(["report", records, "--format", "openmetrics"])
            #expect(metrics.stdout.contains("atsprobe_target_forecast_worse_seconds{target=\"https://forecast.test/\",cause=\"intermediate-expires\"} 1641601\n"), "\(metrics.stdout)")
            #expect(metrics.stdout.contains("atsprobe_target_verdict{target=\"https://forecast.test/\",verdict=\"pass\"} 1\n"))
            // The instant beside the seconds (issue 41), and the renewal failing with the intermediate.
            #expect(metrics.stdout.contains("atsprobe_target_forecast_worse_timestamp_seconds{target=\"https://forecast.test/\",cause=\"intermediate-expires\"} 1781913601\n"))
            #expect(metrics.stdout.contains("atsprobe_target_renewal_trusted{target=\"https://forecast.test/\"} 0\n"))
            try await Self.promtoolCheckMetrics(metrics.stdout)
            // The live audit writes the same metrics as the report of its records.
            let live = try await BinaryRunner.run(["audit", "--forecast", "90d", "--quiet", "--format", "openmetrics"] + common + [url])
            #expect(Self.withoutTimes(live.stdout) == Self.withoutTimes(metrics.stdout))
        }
    }

    /// The lines that differ between two runs (durations, start and end times) removed.
    static func withoutTimes(_ text: String) -> String {
        text.split(separator: "\n").filter { !$0.hasPrefix("atsprobe_target_duration_seconds") && !$0.hasPrefix("atsprobe_run_") }.joined(separator: "\n")
    }

    /// `cert` judges the chain file offline, re-running its judgement at each instant: the same
    /// change as the diagnostics' forecast of the server that serves it.
    @Test func certForecastsTheSameChangeAsDiagnose() async throws {
        try await Self.withServer { common, url, chainFile in
            let root = common[1]
            let cert = try await BinaryRunner.run(["cert", chainFile, "--host", "forecast.test", "--ca-file", root, "--at", Self.at,
                                                   "--forecast", "90d", "--no-aia"])
            #expect(cert.status == 0, "\(cert.stdout)\(cert.stderr)")
            let line = "FORECAST 2026-06-20T00:00:01Z (in 19d): pass -> no-exception: intermediate 'O=atsprobe tests,CN=Forecast Root Intermediate' expires (notAfter 2026-06-20T00:00:00Z)"
            #expect(cert.stdout.contains(line + "\n"), "\(cert.stdout)")
            let diagnose = try await BinaryRunner.run(["diagnose", "--forecast", "90d"] + common + [url])
            #expect(diagnose.stdout.contains(line.replacingOccurrences(of: "FORECAST ", with: "FORECAST   : ")), "\(diagnose.stdout)")
            let json = try await BinaryRunner.run(["cert", chainFile, "--host", "forecast.test", "--ca-file", root, "--at", Self.at,
                                                   "--forecast", "90d", "--no-aia", "--json"])
            let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            let changes = try #require(document["forecast"] as? [[String: Any]])
            #expect(changes.map { $0["at"] as? String } == ["2026-06-20T00:00:01Z"])
            #expect((document["renewal"] as? [String: Any])?["passes"] as? Bool == true)
            // Issue 41: the renewal fails at the instant the forecast names, not "passes" beside it.
            #expect((document["renewal"] as? [String: Any])?["failsFrom"] as? String == "2026-06-20T00:00:01Z")
            #expect(cert.stdout.contains("FORECAST \(Self.renewalLine)\n") && !cert.stdout.contains("renewal from the same CA passes"), "\(cert.stdout)")
        }
    }

    /// `diagnose --rules all --forecast`: each rule set's own forecast (the intermediate ends the
    /// default connection under every rule set), in the grid's text and in each JSON report.
    @Test func rulesAllForecastsEachRuleSet() async throws {
        try await Self.withServer { common, url in
            let json = try await BinaryRunner.run(["diagnose", "--rules", "all", "--forecast", "90d", "--format", "json"] + common + [url])
            #expect(json.status == 0, "\(json.stderr)")
            let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            let ruleSets = try #require(document["ruleSets"] as? [String])
            let reports = try #require(document["reports"] as? [[String: Any]])
            #expect(ruleSets.count > 1 && reports.count == ruleSets.count)
            for report in reports {
                let changes = try #require(report["forecast"] as? [[String: Any]], "\(report["ruleSet"] ?? "")")
                #expect(changes.map { $0["at"] as? String } == ["2026-06-20T00:00:01Z"])
                #expect((report["forecastWindow"] as? [String: Any])?["horizonSeconds"] as? Int == 90 * 86_400)
            }

            let text = try await BinaryRunner.run(["diagnose", "--rules", "all", "--forecast", "90d"] + common + [url])
            #expect(text.status == 0, "\(text.stderr)")
            let change = "FORECAST 2026-06-20T00:00:01Z (in 19d): pass -> no-exception: intermediate 'O=atsprobe tests,CN=Forecast Root Intermediate' expires (notAfter 2026-06-20T00:00:00Z)"
            #expect(text.stdout.contains("\nForecast, by rule set:\n"), "\(text.stdout)")
            for ruleSet in ruleSets {
                #expect(text.stdout.contains("\n  \(ruleSet): \(change)\n"), "\(ruleSet): \(text.stdout)")
                // The intermediate ends the renewal too (issue 41: it read "renewal from the same CA passes").
                #expect(text.stdout.contains("\n  \(ruleSet): FORECAST \(Self.renewalLine)\n"), "\(ruleSet)")
            }
            let markdown = try await BinaryRunner.run(["diagnose", "--rules", "all", "--forecast", "90d", "--format", "markdown"] + common + [url])
            #expect(markdown.stdout.contains("**Forecast, by rule set:**"), "\(markdown.stdout)")
            #expect(markdown.stdout.contains("- `\(ruleSets[0])`: `2026-06-20T00:00:01Z (in 19d): pass -> no-exception"), "\(markdown.stdout)")
            // Without --forecast, no forecast in the grid.
            let plain = try await BinaryRunner.run(["diagnose", "--rules", "all"] + common + [url])
            #expect(plain.status == 0 && !plain.stdout.contains("FORECAST") && !plain.stdout.contains("Forecast, by rule set"))
        }
    }

    @Test func failOnExpiringGatesOnTheForecast() async throws {
        try await Self.withServer { common, url in
            let within = try await BinaryRunner.run(["audit", "--quiet", "--fail-on", "expiring:30d"] + common + [url])
            #expect(within.status == 1, "\(within.stdout)\(within.stderr)")
            let beyond = try await BinaryRunner.run(["audit", "--quiet", "--fail-on", "expiring:10d"] + common + [url])
            #expect(beyond.status == 0, "\(beyond.stdout)\(beyond.stderr)")
            let bad = try await BinaryRunner.run(["audit", "--quiet", "--forecast", "soon"] + common + [url])
            #expect(bad.status == 64)
            #expect(bad.stderr.contains("--forecast 'soon' is not a duration"), "\(bad.stderr)")
        }
    }

    static func promtool(for check: String) throws -> String? {
        try RequiredTool.executable(["/usr/bin/promtool", "/usr/local/bin/promtool"], install: "apt-get install prometheus",
                                    for: "ForecastCommandTests: \(check)")
    }

    static func promtoolCheckMetrics(_ text: String) async throws {
        guard let promtool = try promtool(for: "promtool check metrics") else { return }
        let check = try await ChildProcess.run(promtool, ["check", "metrics"], stdin: text, timeout: 60)
        #expect(check.status == 0 && check.stderr.isEmpty && check.stdout.isEmpty, "promtool: \(check.stdout)\(check.stderr)")
    }

    @Test func theAlertRulesInTheDocsAreValid() async throws {
        guard let promtool = try Self.promtool(for: "promtool check rules") else { return }
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/examples/atsprobe-alerts.yml")
        let check = try await ChildProcess.run(promtool, ["check", "rules", file.path], timeout: 60)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(check.stdout.contains("SUCCESS: 5 rules found"))
    }
}

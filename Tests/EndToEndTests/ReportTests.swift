import ATSPolicy
import ATSTestServers
import Foundation
import Testing
import TestSupport
import TLSFacts

/// Reports for people (issue 14, item 1): HTML, CSV and Markdown from `audit` and `diagnose`,
/// `atsprobe report` over the JSON Lines, and the run's metadata in every record.
@Suite struct ReportTests {
    /// A pass, an exception, a no-exception (expired) and an unreachable target, with their inputs.
    static func withMixedServers<T>(_ body: (_ fixture: ExceptionFixture, _ input: String) async throws -> T) async throws -> T {
        let fixture = try ExceptionFixture()
        let good = try TestTLSServer.start(TLSServerConfiguration(identity: try fixture.pki.issue(CertificateSpec())))
        defer { good.stop() }
        let old = try TestTLSServer.start(TLSServerConfiguration(identity: try fixture.pki.issue(CertificateSpec(key: .rsa(bits: 2048))),
                                                                  minVersion: .tls10, maxVersion: .tls10))
        defer { old.stop() }
        let expired = try TestTLSServer.start(TLSServerConfiguration(identity: try fixture.pki.issue(CertificateSpec(
            notBefore: Date(timeIntervalSinceNow: -100 * 86_400), notAfter: Date(timeIntervalSinceNow: -86_400)))))
        defer { expired.stop() }
        let refused = try unusedLoopbackPort()
        let input = ["https://127.0.0.1:\(good.port)/", "127.0.0.1:\(old.port)", "# a comment <b>", "127.0.0.1:\(expired.port)",
                     "127.0.0.1:\(refused)"].joined(separator: "\n") + "\n"
        return try await body(fixture, input)
    }

    /// A path in the temporary directory, which the caller removes (a `defer` beside it);
    /// `TemporaryDirectory` is the usual way.
    static func temporaryPath(_ suffix: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("atsprobe-report-\(UUID().uuidString)\(suffix)").path
    }

    @Test func auditHTMLEqualsTheReportOfItsRecordsAndRendersInChromium() async throws {
        try await Self.withMixedServers { fixture, input in
            let files = try TemporaryDirectory(prefix: "atsprobe-report")
            defer { files.remove() }
            let html = files.path("report.html"), records = files.path("records.jsonl")
            let live = try await BinaryRunner.run(["audit", "--input", "-", "--ca-file", fixture.rootPath, "--timeout", "3",
                                                   "--format", "html", "--output", html, "--records", records],
                                                  timeout: 120, stdin: input)
            #expect(live.status == 2, "stderr: \(live.stderr)")
            #expect(live.stdout.isEmpty)
            let page = try String(contentsOfFile: html, encoding: .utf8)
            #expect(page.hasPrefix("<!DOCTYPE html>"))
            #expect(!page.contains("<script"), "self-contained and script-free")
            #expect(!page.contains("src=") && !page.contains("<link"), "nothing loaded from elsewhere")
            #expect(page.contains("<td class=\"v-pass\">pass</td>"))
            #expect(page.contains("<td class=\"v-exception\">exception</td>"))
            #expect(page.contains("<td class=\"v-no-exception\">no-exception</td>"))
            #expect(page.contains("unreachable"))
            #expect(page.contains("&lt;key&gt;NSExceptionMinimumTLSVersion&lt;/key&gt;"), "the minimal exception, escaped")
            #expect(page.contains("<dt>HAProxy</dt>"))
            #expect(page.contains("OpenSSL 3"))

            let again = try await BinaryRunner.run(["report", records, "--format", "html", "--quiet"], timeout: 60)
            #expect(again.status == 2)
            #expect(again.stdout == page, "report of the JSON Lines equals the live run's report")

            // `report FILE` (text): the targets in input order, whatever order they finished in, then
            // the matrix by origin after a blank line; the summary names `report`.
            let text = try await BinaryRunner.run(["report", records], timeout: 60)
            let parts = text.stdout.components(separatedBy: "\n\n")
            #expect(parts.count == 2, "\(text.stdout)")
            let lines = parts[0].split(separator: "\n")
            #expect(lines.map { String($0.prefix(13)) } == ["PASS         ", "EXCEPTION    ", "NO-EXCEPTION ", "UNREACHABLE  "], "\(text.stdout)")
            #expect(lines.contains { $0.hasPrefix("EXCEPTION    https://127.0.0.1:") && $0.contains("needs NSExceptionMinimumTLSVersion=TLSv1.0, because ") })
            #expect(lines.contains { $0.hasPrefix("NO-EXCEPTION") && $0.contains("expired") })
            #expect(parts.last?.hasPrefix("nscurl's \(NSCurlMatrix.count) tests by origin and result") == true, "\(text.stdout)")
            #expect(text.stderr.contains("atsprobe report: 4 targets: 1 pass, 1 exception, 1 no-exception, 1 unreachable"))

            // The live text run: the same lines (streamed in finishing order) and, byte for byte,
            // the same matrix as `report` of its records.
            let textRecordsFiles = try TemporaryDirectory(prefix: "atsprobe-report")
            defer { textRecordsFiles.remove() }
            let textRecords = textRecordsFiles.path("textRecords.jsonl")
            let liveText = try await BinaryRunner.run(["audit", "--input", "-", "--ca-file", fixture.rootPath, "--timeout", "3",
                                                       "--records", textRecords, "--quiet"], timeout: 120, stdin: input)
            #expect(liveText.status == 2, "stderr: \(liveText.stderr)")
            let rendered = try await BinaryRunner.run(["report", textRecords, "--quiet"], timeout: 60)
            let liveParts = liveText.stdout.components(separatedBy: "\n\n"), renderedParts = rendered.stdout.components(separatedBy: "\n\n")
            #expect(liveParts.count == 2 && renderedParts.count == 2, "\(liveText.stdout)")
            #expect(liveParts.last == renderedParts.last, "the live matrix equals the report's")
            #expect(liveParts.first.map { Set($0.split(separator: "\n")) } == renderedParts.first.map { Set($0.split(separator: "\n")) })

            let load = try await offCooperativePool { try Chromium.load(html: html) }
            if let load {
                #expect(!load.timedOut)
                #expect(load.status == 0)
                #expect(load.dom.contains("App Transport Security report"), "the DOM: \(load.dom.prefix(300))")
                #expect(load.dom.contains("<table class=\"matrix\">"))
                #expect(load.consoleLines.isEmpty, "console: \(load.consoleLines)")
            }
        }
    }

    @Test func csvAndMarkdownHaveOneRowPerTargetWithStableColumns() async throws {
        try await Self.withMixedServers { fixture, input in
            let csv = try await BinaryRunner.run(["audit", "--input", "-", "--ca-file", fixture.rootPath, "--timeout", "3",
                                                  "--format", "csv", "--quiet"], timeout: 120, stdin: input)
            #expect(csv.stderr.isEmpty, "--quiet: no summary")
            let rows = csv.stdout.components(separatedBy: "\r\n").filter { !$0.isEmpty }
            #expect(rows.count == 5)
            #expect(rows[0] == (["input", "line", "url", "host", "port", "verdict", "exception_keys", "reason", "server_fix"]
                                + NSCurlMatrix.columnNames).joined(separator: ","))
            #expect(rows.contains { $0.contains(",exception,NSExceptionMinimumTLSVersion=TLSv1.0,") })
            #expect(rows.contains { $0.contains(",unreachable,") })

            let markdown = try await BinaryRunner.run(["audit", "--input", "-", "--ca-file", fixture.rootPath, "--timeout", "3",
                                                       "--format", "markdown", "-q"], timeout: 120, stdin: input)
            #expect(markdown.stdout.hasPrefix("# App Transport Security report\n"))
            #expect(markdown.stdout.contains("| Target | Verdict | 1 | 2 |"))
            #expect(markdown.stdout.contains("```xml\n<key>127.0.0.1</key>"))
            #expect(markdown.stdout.contains("# HAProxy\n"))
            // Untrusted text cannot open a link or break the table.
            #expect(markdown.stdout.contains("https://127.0.0.1:") && !markdown.stdout.contains("](http"))
        }
    }

    @Test func everyRecordCarriesTheRunsMetadata() async throws {
        try await Self.withMixedServers { fixture, input in
            let result = try await BinaryRunner.run(["audit", "--json", "--input", "-", "--ca-file", fixture.rootPath, "--timeout", "3"],
                                                    timeout: 120, stdin: input)
            let lines = result.stdout.split(separator: "\n")
            #expect(lines.count == 4)
            var starts = Set<String>()
            for line in lines {
                let record = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                #expect(record["schemaVersion"] as? Int == 2)
                #expect(record["finishedAt"] as? String != nil)
                let run = try #require(record["run"] as? [String: Any])
                #expect(run["tool"] as? String == "atsprobe")
                #expect((run["toolVersion"] as? String)?.isEmpty == false)
                #expect((run["openSSLVersion"] as? String)?.hasPrefix("OpenSSL ") == true)
                #expect(run["ruleSet"] as? String == "ios26")
                #expect((run["trustStore"] as? String)?.contains("+ user-installed roots ") == true)
                #expect((run["ctLogList"] as? String)?.contains("version") == true)
                starts.insert(run["startedAt"] as? String ?? "")
            }
            #expect(starts.count == 1, "one run, one start")
        }
    }

    @Test func diagnoseOfSeveralTargetsWritesAReportEqualToTheReportOfItsJSON() async throws {
        let fixture = try ExceptionFixture()
        try await fixture.withServer { port in
            let jsonFiles = try TemporaryDirectory(prefix: "atsprobe-report")
            defer { jsonFiles.remove() }
            let json = jsonFiles.path("json.json")
            let targets = ["https://127.0.0.1:\(port)/", "https://localhost:\(port)/"]
            let diagnosed = try await BinaryRunner.run(["diagnose", "--ca-file", fixture.rootPath, "--json", "--output", json] + targets, timeout: 120)
            #expect(diagnosed.status == 0, "stderr: \(diagnosed.stderr)")
            let markdown = try await BinaryRunner.run(["report", json, "--format", "markdown"], timeout: 60)
            #expect(markdown.status == 0)
            #expect(markdown.stdout.contains("| pass | 2 |"))
            let live = try await BinaryRunner.run(["diagnose", "--ca-file", fixture.rootPath, "--format", "markdown"] + targets, timeout: 120)
            #expect(live.status == 0)
            #expect(live.stdout.contains("| pass | 2 |"))
            #expect(live.stdout.contains("- **OpenSSL:** `OpenSSL 3"))
        }
    }

    @Test func aFileThatIsNotAtsprobeJSONIsRefusedWithItsLine() async throws {
        let pathFiles = try TemporaryDirectory(prefix: "atsprobe-report")
        defer { pathFiles.remove() }
        let path = pathFiles.path("path.jsonl")
        try "{\"schemaVersion\":2,\"kind\":\"error\",\"verdict\":\"error\",\"input\":\"x\",\"message\":\"m\"}\nnot json\n".write(toFile: path, atomically: true, encoding: .utf8)
        let result = try await BinaryRunner.run(["report", path, "--format", "html"], timeout: 30)
        #expect(result.status == 64)
        #expect(result.stderr.contains("line 2: not an atsprobe record"), "stderr: \(result.stderr)")
        #expect(result.stdout.isEmpty)
        let json = try await BinaryRunner.run(["report", path, "--format", "json"], timeout: 30)
        #expect(json.status == 64, "report writes text, html, csv or markdown")
    }
}

/// Headless Chromium from Debian's `chromium` package (.ci/run installs it): the page loads with
/// no console error. Left out, with a message, where no Chromium is installed away from CI; under CI that fails.
enum Chromium {
    static let candidates = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]

    struct Load: Sendable {
        var timedOut: Bool, status: Int32, dom: String, consoleLines: [String]
    }

    /// Loads the page and dumps its DOM; nil (with a message) when Chromium is not installed.
    static func load(html: String) throws -> Load? {
        guard let path = try RequiredTool.executable(candidates, install: "apt-get install chromium",
                                                     for: "the HTML page loaded in a browser") else { return nil }
        let profileDirectory = try TemporaryDirectory(prefix: "atsprobe-chromium")
        defer { profileDirectory.remove() }
        let profile = profileDirectory.path
        let process = try SpawnedProcess(path, ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(profile)",
                                                "--enable-logging=stderr", "--v=0", "--dump-dom", "file://" + html],
                                         environment: ProcessInfo.processInfo.environment)
        let timedOut = process.finish(within: 90)
        let log = String(decoding: process.stderr, as: UTF8.self)
        // Chromium logs page console messages as "CONSOLE(line)" lines; a page that fails to load says ERR_.
        let console = log.split(separator: "\n").filter { $0.contains("CONSOLE") || $0.contains("ERR_FILE") || $0.contains("Uncaught") }
        return Load(timedOut: timedOut, status: process.exitCode, dom: String(decoding: process.stdout, as: UTF8.self),
                    consoleLines: console.map(String.init))
    }
}

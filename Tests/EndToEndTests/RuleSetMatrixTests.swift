import ATSTestServers
import Foundation
import TLSFacts
import Testing

/// `diagnose --rules all`: one run per rule set on shared handshakes, as a grid. A server that
/// offers only ECDHE-RSA-AES128-SHA256 passes by the documentation (its forward-secret list
/// holds that suite) and fails by Apple's code since Security-60158 (docs/rules.md, "Rule sets"),
/// so the grid must read "passes on documented, ios13; fails on ios26, ios17, ios15.4".
@Suite struct RuleSetMatrixTests {
    /// The server both tests judge (TLS 1.2, ECDHE-RSA-AES128-SHA256 only) as matrix.test, and
    /// the arguments that reach it; stopped when `body` returns or throws.
    static func withMatrixServer(_ body: (_ common: [String]) async throws -> Void) async throws {
        let pki = try TestPKI()
        let root = try pki.writeRootPEM()
        let identity = try pki.issue(CertificateSpec(commonName: "matrix.test", dnsNames: ["matrix.test"], ipAddresses: [], key: .rsa(bits: 2048)))
        let server = try TestTLSServer.start(TLSServerConfiguration(identity: identity, minVersion: .tls12, maxVersion: .tls12,
                                                                    cipherList: "ECDHE-RSA-AES128-SHA256"))
        defer { server.stop() }
        let common = ["--ca-file", root, "--connect-to", "matrix.test:443:127.0.0.1:\(server.port)", "--timeout", "5", "https://matrix.test/"]
        try await body(common)
    }

    @Test func gridShowsWhichReleasesAcceptTheServer() async throws {
        try await Self.withMatrixServer { common in
            let json = try await BinaryRunner.run(["diagnose", "--rules", "all", "--json"] + common, timeout: 120)
            #expect(json.status == 1, "stderr: \(json.stderr)")
            let document = try #require((try? JSONSerialization.jsonObject(with: Data(json.stdout.utf8))) as? [String: Any], "stdout: \(json.stdout)")
            // Release order (oldest first), Apple's documentation last and apart.
            #expect(document["ruleSets"] as? [String] == ["ios13", "ios15.4", "ios17", "ios26", "documented"])
            #expect(document["defaultPassesOn"] as? [String] == ["ios13", "documented"])
            #expect(document["defaultFailsOn"] as? [String] == ["ios15.4", "ios17", "ios26"])
            let columns = try #require(document["columns"] as? [[String: Any]])
            #expect(columns.map { $0["releases"] as? String } == ["iOS 13 - 15.3, macOS 10.15 - 12.2", "iOS 15.4 - 16, macOS 12.3 - 13",
                                                                  "iOS 17 - 18, macOS 14 - 15", "iOS 26 and later, macOS 26 and later", nil])
            #expect(columns.map { $0["documentation"] as? Bool } == [false, false, false, false, true])
            let rows = try #require(document["tests"] as? [[String: Any]])
            #expect(rows.count == 16)
            #expect((rows.first?["results"] as? [String: String]) == ["ios26": "FAIL", "documented": "PASS", "ios17": "FAIL", "ios15.4": "FAIL", "ios13": "PASS"])
            let reports = try #require(document["reports"] as? [[String: Any]])
            #expect(reports.map { $0["ruleSet"] as? String } == ["ios13", "ios15.4", "ios17", "ios26", "documented"])

            // Shared handshakes: fewer than the four runs make one by one.
            let shared = try #require(document["handshakes"] as? Int)
            var separate = 0
            for id in ["ios26", "documented", "ios17", "ios15.4", "ios13"] {
                let one = try await BinaryRunner.run(["diagnose", "--rules", id, "--json"] + common, timeout: 60)
                let report = try #require((try? JSONSerialization.jsonObject(with: Data(one.stdout.utf8))) as? [String: Any])
                separate += report["handshakes"] as? Int ?? 0
                // Each column of the grid is what that rule set's own run says.
                #expect(report["defaultPasses"] as? Bool == ["documented", "ios13"].contains(id), "\(id)")
            }
            #expect(shared < separate, "shared \(shared), separate \(separate)")

            let text = try await BinaryRunner.run(["diagnose", "--rules", "all"] + common, timeout: 120)
            #expect(text.status == 1)
            #expect(text.stdout.contains("Default ATS connection: passes on iOS 13 - 15.3 (ios13); fails on iOS 15.4 - 16 (ios15.4), "
                + "iOS 17 - 18 (ios17), iOS 26 and later (ios26); Apple's documentation (documented): passes"), "\(text.stdout)")
            #expect(text.stdout.contains("ios13          ios15.4        ios17        ios26             | documented\n"), "\(text.stdout)")
            #expect(text.stdout.contains("iOS 13 - 15.3  iOS 15.4 - 16  iOS 17 - 18  iOS 26 and later  | Apple's documentation\n"), "\(text.stdout)")
        }
    }

    /// HTML, CSV and Markdown show the same grid as JSON: the default connection's row is
    /// PASS, FAIL, FAIL, FAIL, PASS under ios13, ios15.4, ios17, ios26 and documented (release order, the
    /// documentation last), each column named with its releases.
    @Test func htmlCSVAndMarkdownShowTheSameGrid() async throws {
        try await Self.withMatrixServer { common in
            let csv = try await BinaryRunner.run(["diagnose", "--rules", "all", "--format", "csv"] + common, timeout: 120)
            #expect(csv.status == 1, "stderr: \(csv.stderr)")
            let rows = csv.stdout.components(separatedBy: "\r\n").filter { !$0.isEmpty }
            #expect(rows.first == "url,handshakes,section,test,\"ios13 (iOS 13 - 15.3, macOS 10.15 - 12.2)\",\"ios15.4 (iOS 15.4 - 16, macOS 12.3 - 13)\","
                + "\"ios17 (iOS 17 - 18, macOS 14 - 15)\",\"ios26 (iOS 26 and later, macOS 26 and later)\",documented (Apple's documentation)", "\(rows)")
            #expect(rows.count == 18, "\(rows)")  // header, 16 tests, the needs row
            #expect(rows.dropFirst().first?.hasSuffix(",Default ATS Secure Connection,ATS Default Connection,PASS,FAIL,FAIL,FAIL,PASS") == true, "\(rows)")
            #expect(rows.last?.contains(",Default ATS connection,needs,") == true, "\(rows)")

            let html = try await BinaryRunner.run(["diagnose", "--rules", "all", "--format", "html"] + common, timeout: 120)
            #expect(html.status == 1, "stderr: \(html.stderr)")
            #expect(html.stdout.hasPrefix("<!DOCTYPE html>") && html.stdout.hasSuffix("</html>\n"))
            #expect(html.stdout.contains("<tr><th scope=\"row\">ATS Default Connection</th><td class=\"pass\">&#x2713; PASS</td><td class=\"fail\">&#x2717; FAIL</td><td class=\"fail\">&#x2717; FAIL</td><td class=\"fail\">&#x2717; FAIL</td><td class=\"pass doc\">&#x2713; PASS</td></tr>"), "\(html.stdout)")
            #expect(html.stdout.contains("<th scope=\"col\">ios13<br><span class=\"releases\">iOS 13 - 15.3</span></th>"), "\(html.stdout)")
            #expect(html.stdout.contains("passes on iOS 13 - 15.3 (ios13); fails on iOS 15.4 - 16 (ios15.4), iOS 17 - 18 (ios17), iOS 26 and later (ios26)"))

            let markdown = try await BinaryRunner.run(["diagnose", "--rules", "all", "--format", "markdown"] + common, timeout: 120)
            #expect(markdown.status == 1, "stderr: \(markdown.stderr)")
            #expect(markdown.stdout.contains("| `ATS Default Connection` | ✓ PASS | ✗ FAIL | ✗ FAIL | ✗ FAIL | ✓ PASS |"), "\(markdown.stdout)")
            #expect(markdown.stdout.contains("| Test | `ios13`<br>`iOS 13 - 15.3` | `ios15.4`<br>`iOS 15.4 - 16` | `ios17`<br>`iOS 17 - 18` | `ios26`<br>`iOS 26 and later` | `documented`<br>`Apple's documentation` |"), "\(markdown.stdout)")
        }
    }

    @Test func plistIsOneLineExit64() async throws {
        let result = try await BinaryRunner.run(["diagnose", "--rules", "all", "--format", "plist", "127.0.0.1:9"], timeout: 30)
        #expect(result.status == 64)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("--rules all writes text, json, html, csv or markdown only"), "\(result.stderr)")
    }
}

import ATSPolicy
import ATSTestServers
import Foundation
import TLSFacts
import Testing

/// `diagnose --rules all`: one run per rule set on shared handshakes, as a grid. A server that
/// offers only ECDHE-RSA-AES128-SHA256 passes by the documentation (its forward-secret list
/// holds that suite) and fails by Apple's code since Security-60158 (docs/rules.md, "Rule sets"),
/// so the grid must read "passes on ios13; fails on ios15.4, ios17, ios26; documented: passes".
/// Each expectation is built from `RuleSet.inReleaseOrder`, so a rule set added there needs no
/// line here: its column must say what its own suite list says of the server.
@Suite struct RuleSetMatrixTests {
    /// The rule sets `--rules all` runs, in its order.
    static let sets = RuleSet.inReleaseOrder
    /// The server's only suite, ECDHE-RSA-AES128-SHA256.
    static let suite = CipherSuite(rawValue: 0xC027)

    /// Whether `set`'s ATS suites take the server's suite: its default connection's result.
    static func passes(_ set: RuleSet) -> Bool { set.atsSuites.contains(suite) }
    static var passing: [String] { sets.filter(passes).map(\.id) }
    static var failing: [String] { sets.filter { !passes($0) }.map(\.id) }
    /// Each set's result as the grid's cells say it, in order.
    static var results: [String] { sets.map { passes($0) ? "PASS" : "FAIL" } }

    /// The default connection by release, then Apple's documentation apart, as the text and HTML say it.
    static var releaseSummary: String {
        let releases = sets.filter { $0.releases != nil }
        return "passes on " + releases.filter(passes).map { "\($0.releasesText) (\($0.id))" }.joined(separator: ", ")
            + "; fails on " + releases.filter { !passes($0) }.map { "\($0.releasesText) (\($0.id))" }.joined(separator: ", ")
    }

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
        // The sets' own lists, where the sources say: iOS 13-15.3 and the documentation take the
        // suite, iOS 26 does not.
        #expect(Self.passing.contains("ios13") && Self.passing.contains("documented") && Self.failing.contains("ios26"))
        try await Self.withMatrixServer { common in
            let json = try await BinaryRunner.run(["diagnose", "--rules", "all", "--json"] + common, timeout: 120)
            #expect(json.status == 1, "stderr: \(json.stderr)")
            let document = try #require((try? JSONSerialization.jsonObject(with: Data(json.stdout.utf8))) as? [String: Any], "stdout: \(json.stdout)")
            // Release order (oldest first), Apple's documentation last and apart.
            #expect(document["ruleSets"] as? [String] == Self.sets.map(\.id))
            #expect(Self.sets.last?.id == "documented")
            #expect(document["defaultPassesOn"] as? [String] == Self.passing)
            #expect(document["defaultFailsOn"] as? [String] == Self.failing)
            let columns = try #require(document["columns"] as? [[String: Any]])
            #expect(columns.map { $0["releases"] as? String } == Self.sets.map { $0.releases?.text })
            #expect(columns.map { $0["documentation"] as? Bool } == Self.sets.map { $0.releases == nil })
            let rows = try #require(document["tests"] as? [[String: Any]])
            #expect(rows.count == NSCurlMatrix.count)
            #expect((rows.first?["results"] as? [String: String]) == Dictionary(uniqueKeysWithValues: zip(Self.sets.map(\.id), Self.results)))
            let reports = try #require(document["reports"] as? [[String: Any]])
            #expect(reports.map { $0["ruleSet"] as? String } == Self.sets.map(\.id))

            // Shared handshakes: fewer than the runs make one by one.
            let shared = try #require(document["handshakes"] as? Int)
            var separate = 0
            for set in Self.sets {
                let one = try await BinaryRunner.run(["diagnose", "--rules", set.id, "--json"] + common, timeout: 60)
                let report = try #require((try? JSONSerialization.jsonObject(with: Data(one.stdout.utf8))) as? [String: Any])
                separate += report["handshakes"] as? Int ?? 0
                // Each column of the grid is what that rule set's own run says.
                #expect(report["defaultPasses"] as? Bool == Self.passes(set), "\(set.id)")
            }
            #expect(shared < separate, "shared \(shared), separate \(separate)")

            let text = try await BinaryRunner.run(["diagnose", "--rules", "all"] + common, timeout: 120)
            #expect(text.status == 1)
            #expect(text.stdout.contains("Default ATS connection: " + Self.releaseSummary + "; Apple's documentation (documented): passes"),
                    "\(text.stdout)")
            // The ids on one line and the releases under them, each column in order, the
            // documentation's behind a bar.
            let lines = text.stdout.split(separator: "\n").map(String.init)
            for words in [Self.sets.map(\.id), Self.sets.map(\.releasesText)] {
                let line = lines.first { line in line.contains(" | ") && words.allSatisfy(line.contains) } ?? ""
                let places = words.compactMap { line.range(of: $0)?.lowerBound }
                #expect(places.count == words.count && places == places.sorted(), "\(words) in order on one line: \(text.stdout)")
            }
        }
    }

    /// HTML, CSV and Markdown show the same grid as JSON: the default connection's row holds each
    /// rule set's result in release order, the documentation last, each column named with its releases.
    @Test func htmlCSVAndMarkdownShowTheSameGrid() async throws {
        try await Self.withMatrixServer { common in
            let csv = try await BinaryRunner.run(["diagnose", "--rules", "all", "--format", "csv"] + common, timeout: 120)
            #expect(csv.status == 1, "stderr: \(csv.stderr)")
            let rows = csv.stdout.components(separatedBy: "\r\n").filter { !$0.isEmpty }
            let headers = Self.sets.map { set -> String in
                let name = "\(set.id) (\(set.releases?.text ?? "Apple's documentation"))"
                return name.contains(",") ? "\"\(name)\"" : name
            }
            #expect(rows.first == (["url", "handshakes", "section", "test"] + headers).joined(separator: ","), "\(rows)")
            #expect(rows.count == NSCurlMatrix.count + 2, "\(rows)")  // header, the tests, the needs row
            #expect(rows.dropFirst().first?.hasSuffix(",Default ATS Secure Connection,ATS Default Connection," + Self.results.joined(separator: ",")) == true,
                    "\(rows)")
            #expect(rows.last?.contains(",Default ATS connection,needs,") == true, "\(rows)")

            let html = try await BinaryRunner.run(["diagnose", "--rules", "all", "--format", "html"] + common, timeout: 120)
            #expect(html.status == 1, "stderr: \(html.stderr)")
            #expect(html.stdout.hasPrefix("<!DOCTYPE html>") && html.stdout.hasSuffix("</html>\n"))
            let cells = Self.sets.map { set in
                "<td class=\"\(Self.passes(set) ? "pass" : "fail")\(set.releases == nil ? " doc" : "")\">"
                    + (Self.passes(set) ? "&#x2713; PASS" : "&#x2717; FAIL") + "</td>"
            }
            #expect(html.stdout.contains("<tr><th scope=\"row\">ATS Default Connection</th>" + cells.joined() + "</tr>"), "\(html.stdout)")
            for set in Self.sets where set.releases != nil {
                #expect(html.stdout.contains("<th scope=\"col\">\(set.id)<br><span class=\"releases\">\(set.releasesText)</span></th>"), "\(html.stdout)")
            }
            #expect(html.stdout.contains(Self.releaseSummary))

            let markdown = try await BinaryRunner.run(["diagnose", "--rules", "all", "--format", "markdown"] + common, timeout: 120)
            #expect(markdown.status == 1, "stderr: \(markdown.stderr)")
            let marks = Self.sets.map { Self.passes($0) ? " ✓ PASS |" : " ✗ FAIL |" }
            #expect(markdown.stdout.contains("| `ATS Default Connection` |" + marks.joined()), "\(markdown.stdout)")
            #expect(markdown.stdout.contains("| Test |" + Self.sets.map { " `\($0.id)`<br>`\($0.releasesText)` |" }.joined()), "\(markdown.stdout)")
        }
    }

    @Test func plistIsOneLineExit64() async throws {
        let result = try await BinaryRunner.run(["diagnose", "--rules", "all", "--format", "plist", "127.0.0.1:9"], timeout: 30)
        #expect(result.status == 64)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("--rules all writes text, json, html, csv or markdown only"), "\(result.stderr)")
    }
}

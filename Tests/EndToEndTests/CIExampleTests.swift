import ATSTestServers
import Foundation
import Testing
import TestSupport

/// docs/ci.md's GitHub Actions workflow and Jenkinsfile, run as their runners run them: each
/// `run:` block (but the install step) and each `sh` step with bash `-e` in a checkout-like
/// directory, `atsprobe` on PATH, against TLS servers on loopback (the commands, not GitHub or
/// Jenkins themselves).
@Suite struct CIExampleTests {
    static let ciDoc = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/ci.md")

    /// The fenced block of `language` in docs/ci.md.
    static func block(_ language: String) throws -> [String] {
        let text = try String(contentsOf: ciDoc, encoding: .utf8)
        let start = try #require(text.range(of: "```\(language)\n"))
        let end = try #require(text.range(of: "\n```", range: start.upperBound..<text.endIndex))
        return text[start.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The workflow's steps' `run: |` scripts, in order, but the install step's.
    static func githubSteps() throws -> [String] {
        let lines = try block("yaml")
        var scripts: [String] = []
        var index = 0
        var stepName = ""
        while index < lines.count {
            let line = lines[index]
            if let range = line.range(of: "- name: ") { stepName = String(line[range.upperBound...]) }
            if line.trimmingCharacters(in: .whitespaces) == "run: |" {
                let indent = line.prefix { $0 == " " }.count
                var body: [String] = []
                index += 1
                while index < lines.count, lines[index].prefix(while: { $0 == " " }).count > indent {
                    body.append(lines[index].trimmingCharacters(in: .whitespaces))
                    index += 1
                }
                scripts.append(body.joined(separator: "\n"))
                continue
            }
            if line.contains("run: "), !stepName.hasPrefix("Install") {
                scripts.append(String(line[line.range(of: "run: ")!.upperBound...]))
            }
            index += 1
        }
        return scripts
    }

    /// The Jenkinsfile's `sh '...'` steps, in order.
    static func jenkinsSteps() throws -> [String] {
        try block("groovy").compactMap { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("sh '"), trimmed.hasSuffix("'") else { return nil }
            return String(trimmed.dropFirst(4).dropLast())
        }
    }

    /// Runs `script` with bash -e in `directory`, atsprobe on PATH, ATS_OPTIONS set.
    static func run(_ script: String, in directory: String, options: String, bin: String) async throws -> ChildProcessResult {
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = bin + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["ATS_OPTIONS"] = options
        environment["NO_COLOR"] = "1"
        return try await ChildProcess.run("/bin/bash", ["-e", "-c", "cd \"$0\"\n" + script, directory], environment: environment, timeout: 300)
    }

    @Test(arguments: ["github", "jenkins"])
    func theCIExampleRunsEndToEnd(ci: String) async throws {
        let steps = ci == "github" ? try Self.githubSteps() : try Self.jenkinsSteps()
        #expect(steps.count >= 2 && steps.allSatisfy { $0.contains("atsprobe ") }, "\(steps)")
        let fixture = try ExceptionFixture()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let bin = directory.path("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: bin + "/atsprobe", withDestinationPath: BinaryRunner.binaryURL.path)
        try FileManager.default.createDirectory(atPath: directory.path("ats"), withIntermediateDirectories: true)
        _ = try directory.write("ats/targets.txt", "# hosts the app loads\nhttps://api.test/\nhttps://shop.test/\n")
        let identity = try fixture.pki.issue(CertificateSpec(commonName: "shop.test", dnsNames: ["shop.test", "api.test"], key: .rsa(bits: 2048)))
        let api = try TestTLSServer.start(TLSServerConfiguration(identity: identity))
        defer { api.stop() }
        func options(shop port: Int) -> String {
            "--ca-file \(fixture.rootPath) --timeout 5 --connect-to api.test:443:127.0.0.1:\(api.port) --connect-to shop.test:443:127.0.0.1:\(port)"
        }
        // The baseline, recorded while both servers are good.
        let good = try TestTLSServer.start(TLSServerConfiguration(identity: identity))
        let baseline = try await Self.run("atsprobe audit --input ats/targets.txt $ATS_OPTIONS --records ats/baseline.jsonl --quiet",
                                          in: directory.url.path, options: options(shop: good.port), bin: bin)
        #expect(baseline.status == 0, "\(baseline.stderr)")
        // Nothing got worse: every step passes.
        for step in steps {
            let result = try await Self.run(step, in: directory.url.path, options: options(shop: good.port), bin: bin)
            #expect(result.status == 0, "\(ci): \(step): \(result.stdout)\(result.stderr)")
        }
        good.stop()
        // shop.test got worse: TLS 1.2 with only a static-RSA suite (needs NSExceptionRequiresForwardSecrecy).
        var weak = TLSServerConfiguration(identity: identity)
        weak.minVersion = .tls12; weak.maxVersion = .tls12; weak.cipherList = "AES128-GCM-SHA256"
        let worse = try TestTLSServer.start(weak)
        defer { worse.stop() }
        var statuses: [Int32] = []
        for step in steps {
            let result = try await Self.run(step, in: directory.url.path, options: options(shop: worse.port), bin: bin)
            statuses.append(result.status)
        }
        #expect(Array(statuses.dropLast()).allSatisfy { $0 == 0 } && statuses.last == 1, "only the comparison step fails the job: \(statuses)")

        let sarif = try String(contentsOfFile: directory.path("ats.sarif"), encoding: .utf8)
        try await PlistFormatsTests.validateSARIF(sarif, fixture: try PlistFixture())
        let log = try #require(jsonObject(sarif))
        let result = try #require(((log["runs"] as? [[String: Any]])?.first?["results"] as? [[String: Any]])?.first)
        let physical = try #require((result["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any])
        #expect((physical["artifactLocation"] as? [String: Any])?["uri"] as? String == "ats/targets.txt")
        #expect((physical["region"] as? [String: Any])?["startLine"] as? Int == 3, "shop.test is line 3 of ats/targets.txt")
        #expect(((result["message"] as? [String: Any])?["text"] as? String)?.contains("https://shop.test/") == true)

        let junit = try String(contentsOfFile: directory.path("ats-junit.xml"), encoding: .utf8)
        if let cases = try await CIFormatsTests.readAsJenkins(junit) {
            #expect(cases.map(\.status).sorted() == ["FAILED", "PASSED"], "\(cases)")
            #expect(cases.first { $0.status == "FAILED" }?.name == "https://shop.test/")
        }
        let comment = try String(contentsOfFile: directory.path("ats-comment.md"), encoding: .utf8)
        #expect(comment.hasPrefix("## ATS: 1 target got worse\n"), "\(comment)")
        #expect(comment.contains("- **REGRESSED** `https://shop.test/`: pass → exception"), "\(comment)")
    }
}

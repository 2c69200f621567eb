import ATSTestServers
import Foundation
import Testing
import TestSupport

/// docs/ci.md's examples, run as their runners run them, from the bootstrap onwards: the
/// first-baseline script, then the GitHub Actions workflow's `run:` blocks (but the install
/// step), the Jenkinsfile's `sh` steps or the GitLab job's `script:` lines, each with bash `-e`
/// in a checkout-like directory, `atsprobe` on PATH, against TLS servers on loopback (the
/// commands, not GitHub, Jenkins or GitLab themselves).
@Suite struct CIExampleTests {
    static let ciDoc = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/ci.md")

    /// The fenced block of `language` in docs/ci.md whose first line is `first` (its file name comment).
    static func block(_ language: String, first: String) throws -> [String] {
        let text = try String(contentsOf: ciDoc, encoding: .utf8)
        let start = try #require(text.range(of: "```\(language)\n\(first)\n"))
        let end = try #require(text.range(of: "\n```", range: start.upperBound..<text.endIndex))
        return text[start.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The first-baseline script (record-baseline.sh).
    static func bootstrap() throws -> String {
        try block("sh", first: "# record-baseline.sh").joined(separator: "\n")
    }

    /// The workflow's steps' `run: |` scripts, in order, but the install step's.
    static func githubSteps() throws -> [String] {
        let lines = try block("yaml", first: "# .github/workflows/ats.yml")
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
            if let range = line.range(of: "run: "), !stepName.hasPrefix("Install") {
                scripts.append(String(line[range.upperBound...]))
            }
            index += 1
        }
        return scripts
    }

    /// The Jenkinsfile's `sh '...'` steps, in order.
    static func jenkinsSteps() throws -> [String] {
        try block("groovy", first: "// Jenkinsfile").compactMap { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("sh '"), trimmed.hasSuffix("'") else { return nil }
            return String(trimmed.dropFirst(4).dropLast())
        }
    }

    /// The GitLab job's `script:` lines, in order (GitLab stops the job at the first that fails).
    static func gitlabSteps() throws -> [String] {
        let lines = try block("yaml", first: "# .gitlab-ci.yml")
        guard let start = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "script:" }) else { return [] }
        var steps: [String] = []
        for line in lines[(start + 1)...] {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("- ") else { break }
            steps.append(String(trimmed.dropFirst(2)))
        }
        return steps
    }

    /// Where the job's JUnit and SARIF are, by the example's own steps.
    static func artifact(_ extension: String, in steps: [String]) -> String? {
        for step in steps {
            let words = step.split(separator: " ").map(String.init)
            if let index = words.firstIndex(of: "--output"), index + 1 < words.count, words[index + 1].hasSuffix(`extension`) { return words[index + 1] }
        }
        return nil
    }

    /// Runs `script` with bash -e in `directory`, atsprobe on PATH, ATS_OPTIONS set.
    static func run(_ script: String, in directory: String, options: String, bin: String) async throws -> ChildProcessResult {
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = bin + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["ATS_OPTIONS"] = options
        environment["NO_COLOR"] = "1"
        return try await ChildProcess.run("/bin/bash", ["-e", "-c", "cd \"$0\"\n" + script, directory], environment: environment, timeout: 300)
    }

    @Test(arguments: ["github", "jenkins", "gitlab"])
    func theCIExampleRunsEndToEndFromTheBootstrap(ci: String) async throws {
        let steps = switch ci {
        case "github": try Self.githubSteps()
        case "jenkins": try Self.jenkinsSteps()
        default: try Self.gitlabSteps()
        }
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
        // api.test needs an exception throughout (TLS 1.2 without forward secrecy): the JUnit
        // of the comparison must not fail on what it always needed.
        var exception = TLSServerConfiguration(identity: identity)
        exception.minVersion = .tls12; exception.maxVersion = .tls12; exception.cipherList = "AES128-GCM-SHA256"
        let api = try TestTLSServer.start(exception)
        defer { api.stop() }
        func options(shop port: Int) -> String {
            "--ca-file \(fixture.rootPath) --timeout 5 --connect-to api.test:443:127.0.0.1:\(api.port) --connect-to shop.test:443:127.0.0.1:\(port)"
        }
        let good = try TestTLSServer.start(TLSServerConfiguration(identity: identity))
        // Before the bootstrap the comparison stops with 64 and the command that records the baseline.
        var stopped: ChildProcessResult?
        for step in steps {
            let result = try await Self.run(step, in: directory.url.path, options: options(shop: good.port), bin: bin)
            if result.status != 0 { stopped = result; break }
        }
        #expect(stopped?.status == 64 && stopped?.stderr.contains("record the first baseline with this run's options: atsprobe audit --input ats/targets.txt") == true,
                "\(ci): \(stopped?.stderr ?? "no step stopped")")
        // The bootstrap: the baseline recorded with the CI's own options, compact.
        let bootstrap = try await Self.run(try Self.bootstrap(), in: directory.url.path, options: options(shop: good.port), bin: bin)
        #expect(bootstrap.status == 0, "\(bootstrap.stderr)")
        let baseline = try String(contentsOfFile: directory.path("ats/baseline.jsonl"), encoding: .utf8)
        #expect(baseline.split(separator: "\n").count == 3 && baseline.utf8.count < 3 * 2048, "a compact baseline: \(baseline.utf8.count) bytes")
        // Nothing got worse: every step passes.
        for step in steps {
            let result = try await Self.run(step, in: directory.url.path, options: options(shop: good.port), bin: bin)
            #expect(result.status == 0, "\(ci): \(step): \(result.stdout)\(result.stderr)")
        }
        if let junitPath = Self.artifact(".xml", in: steps) {
            let junit = try String(contentsOfFile: directory.path(junitPath), encoding: .utf8)
            if let cases = try await CIFormatsTests.readAsJenkins(junit) {
                #expect(cases.map(\.status) == ["PASSED", "PASSED"], "a clean build is not UNSTABLE: \(cases)")
            }
        }
        good.stop()
        // shop.test got worse: TLS 1.2 with only a static-RSA suite (needs NSExceptionRequiresForwardSecrecy).
        let worse = try TestTLSServer.start(exception)
        defer { worse.stop() }
        var statuses: [Int32] = []
        for step in steps {
            let result = try await Self.run(step, in: directory.url.path, options: options(shop: worse.port), bin: bin)
            statuses.append(result.status)
        }
        #expect(Array(statuses.dropLast()).allSatisfy { $0 == 0 } && statuses.last == 1, "only the comparison step fails the job: \(statuses)")

        if let sarifPath = Self.artifact(".sarif", in: steps) {
            let sarif = try String(contentsOfFile: directory.path(sarifPath), encoding: .utf8)
            try await PlistFormatsTests.validateSARIF(sarif, fixture: try PlistFixture())
            let log = try #require(jsonObject(sarif))
            let run = try #require((log["runs"] as? [[String: Any]])?.first)
            #expect((run["automationDetails"] as? [String: Any])?["id"] as? String == "atsprobe-audit/")
            let results = try #require(run["results"] as? [[String: Any]])
            let shop = try #require(results.first { ((($0["message"] as? [String: Any])?["text"] as? String) ?? "").contains("https://shop.test/") })
            let physical = try #require((shop["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any])
            #expect((physical["artifactLocation"] as? [String: Any])?["uri"] as? String == "ats/targets.txt")
            #expect((physical["region"] as? [String: Any])?["startLine"] as? Int == 3, "shop.test is line 3 of ats/targets.txt")
        }
        if let junitPath = Self.artifact(".xml", in: steps) {
            let junit = try String(contentsOfFile: directory.path(junitPath), encoding: .utf8)
            if let cases = try await CIFormatsTests.readAsJenkins(junit) {
                #expect(cases.map(\.status).sorted() == ["FAILED", "PASSED"], "\(cases)")
                #expect(cases.first { $0.status == "FAILED" }?.name == "https://shop.test/")
            }
        }
        let comment = try String(contentsOfFile: directory.path("ats-comment.md"), encoding: .utf8)
        #expect(comment.hasPrefix("## ATS: 1 target got worse\n"), "\(comment)")
        #expect(comment.contains("- **REGRESSED** `https://shop.test/`: pass → exception"), "\(comment)")

        // shop.test commented out of the targets file: the gate fails (absent), it does not pass.
        _ = try directory.write("ats/targets.txt", "# hosts the app loads\nhttps://api.test/\n# https://shop.test/\n")
        var removed: [Int32] = []
        for step in steps {
            removed.append(try await Self.run(step, in: directory.url.path, options: options(shop: worse.port), bin: bin).status)
        }
        #expect(removed.last == 1, "a host commented out fails the gate: \(removed)")
    }
}

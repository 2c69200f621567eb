import ATSPolicy
import ATSTestServers
import Foundation
import Testing
import TestSupport

/// docs/embedding.md's example is a target of the package (`EmbeddingExample`): built with the
/// tests, run here against a loopback server, and shown on the page exactly as it is.
@Suite struct EmbeddingExampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let example = BinaryRunner.binaryURL.deletingLastPathComponent().appendingPathComponent("EmbeddingExample")

    @Test func theExampleRunsATargetOnItsOwnRuntime() async throws {
        let host = try LoopbackHost()
        defer { host.stop() }
        let (server, rootPEM) = (host.server, host.rootPath)
        let result = try await ChildProcess.run(Self.example.path, ["https://127.0.0.1:\(server.port)/", "--ca-file", rootPEM], timeout: 60)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.first == "PASS  ATS Default Connection", "\(result.stdout)")
        #expect(lines.filter { $0.hasPrefix("PASS ") || $0.hasPrefix("FAIL ") }.count == NSCurlMatrix.count)
        #expect(lines.last?.hasPrefix("handshakes: ") == true)
        #expect(server.completedHandshakes > 0)
    }

    /// The Apple-shaped case: a root the system trusts (SSL_CERT_FILE with --trust-store system),
    /// so CT is required, and a leaf whose SCTs come from test logs. With a log list naming those
    /// logs the default load passes; with the default (Apple's list, the one list the run judges
    /// and checks signatures with) the same SCTs are from unknown logs and the load fails.
    @Test func anAppleShapedHostIsJudgedWithTheOneCTLogList() async throws {
        let pki = try TestPKI()
        let rootPEM = try pki.writeRootPEM()
        let logs = [try TestCTLog(name: "Test log A", operator: "Op A"), try TestCTLog(name: "Test log B", operator: "Op B"),
                    try TestCTLog(name: "Test log C", operator: "Op C")]
        let signed = Date(timeIntervalSinceNow: -3600)
        let identity = try pki.issue(CertificateSpec(embeddedSCTs: logs.map { TestSCT(log: $0, timestamp: signed) }))
        let files = try TemporaryDirectory(prefix: "atsprobe-example")
        defer { files.remove() }
        let listPath = try files.write("log_list.json", TestCTLog.logListJSON(logs, since: Date(timeIntervalSinceNow: -400 * 86_400)))
        let server = try TestTLSServer.start(TLSServerConfiguration(identity: identity))
        defer { server.stop() }
        var environment = ProcessInfo.processInfo.environment
        environment["SSL_CERT_FILE"] = rootPEM
        let url = "https://127.0.0.1:\(server.port)/"
        let withLogs = try await ChildProcess.run(Self.example.path, [url, "--trust-store", "system", "--ct-log-list", listPath],
                                                  environment: environment, timeout: 60)
        #expect(withLogs.status == 0, "\(withLogs.stdout)\(withLogs.stderr)")
        #expect(withLogs.stdout.split(separator: "\n").first == "PASS  ATS Default Connection", "\(withLogs.stdout)")
        let byDefault = try await ChildProcess.run(Self.example.path, [url, "--trust-store", "system"], environment: environment, timeout: 60)
        #expect(byDefault.status == 1, "\(byDefault.stdout)\(byDefault.stderr)")
        #expect(byDefault.stdout.split(separator: "\n").first == "FAIL  ATS Default Connection", "\(byDefault.stdout)")
    }

    /// The example is a target of this package, so the compiler would let it use `package`
    /// declarations; type-checked as another package's code (scripts/api-description
    /// --typecheck: no -package-name), it must compile from the public API alone: `Run`, made
    /// from a `RunContext`, is the way in. A file reaching for the run's prober does not.
    @Test func theExampleUsesThePublicAPIOnly() async throws {
        let script = Self.root.appendingPathComponent("scripts/api-description").path
        let build = BinaryRunner.binaryURL.deletingLastPathComponent().path
        let example = try await ChildProcess.run(RequiredTool.python, [script, "--typecheck", Self.root.appendingPathComponent("Examples/Embedding/main.swift").path,
                                                                       "--build", build], timeout: 300)
        #expect(!example.timedOut)
        #expect(example.status == 0, "\(example.stdout)\(example.stderr)")
        let files = try TemporaryDirectory(prefix: "atsprobe-public")
        defer { files.remove() }
        let inside = try files.write("inside.swift", "import ATSEngine\nfunc prober(of run: Run) { _ = run.prober }\n")
        let refused = try await ChildProcess.run(RequiredTool.python, [script, "--typecheck", inside, "--build", build], timeout: 300)
        #expect(refused.status == 1, "\(refused.stdout)\(refused.stderr)")
        #expect(refused.stdout.contains("'prober' is inaccessible due to 'package' protection level"), "\(refused.stdout)")
    }

    @Test func aBadURLIsAUsageError() async throws {
        let result = try await ChildProcess.run(Self.example.path, ["not a url"], timeout: 30)
        #expect(result.status == 64)
        #expect(result.stdout.hasPrefix("usage: EmbeddingExample URL"))
    }

    @Test func theDocumentShowsTheExampleAsItIs() throws {
        let source = try String(contentsOf: Self.root.appendingPathComponent("Examples/Embedding/main.swift"), encoding: .utf8)
        let page = try String(contentsOf: Self.root.appendingPathComponent("docs/embedding.md"), encoding: .utf8)
        #expect(page.contains("```swift\n" + source + "```\n"), "docs/embedding.md's example differs from Examples/Embedding/main.swift")
    }
}

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
        let pki = try TestPKI()
        let rootPEM = try pki.writeRootPEM()
        defer { try? FileManager.default.removeItem(atPath: rootPEM) }
        let server = try TestTLSServer.start(TLSServerConfiguration(identity: try pki.issue(CertificateSpec())))
        defer { server.stop() }
        let result = try await ChildProcess.run(Self.example.path, ["https://127.0.0.1:\(server.port)/", rootPEM], timeout: 60)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.first == "PASS  ATS Default Connection", "\(result.stdout)")
        #expect(lines.filter { $0.hasPrefix("PASS ") || $0.hasPrefix("FAIL ") }.count == 16)
        #expect(lines.last?.hasPrefix("handshakes: ") == true)
        #expect(server.completedHandshakes > 0)
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

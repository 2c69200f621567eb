import ATSTestServers
import Foundation
import Testing

/// --color, NO_COLOR and --output, against one loopback server.
@Suite struct OutputOptionTests {
    @Test func colourOnlyWhenAskedOrOnATerminal() async throws {
        let fixture = try ScenarioServer(.tls11Only)
        defer { fixture.stop() }
        let base = ["--ats-diagnostics", "--ca-file", fixture.rootPath, fixture.url]
        let always = try await BinaryRunner.run(["--color", "always"] + base, timeout: 60)
        #expect(always.stdout.contains("Result : \u{1B}[31mFAIL\u{1B}[0m"))
        #expect(always.stdout.contains("Result : \u{1B}[32mPASS\u{1B}[0m"))
        // A pipe is not a terminal: no colour by default.
        let auto = try await BinaryRunner.run(base, timeout: 60)
        #expect(!auto.stdout.contains("\u{1B}"))
        #expect(auto.stdout.contains("Result : FAIL"))
    }

    @Test func outputFileReceivesTheResult() async throws {
        let fixture = try ScenarioServer(.modernRSA2048)
        defer { fixture.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("atsprobe-output-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("result.json").path
        let result = try await BinaryRunner.run(["probe", "--json", "--output", file, "--ca-file", fixture.rootPath, fixture.url], timeout: 60)
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty)
        let written = try String(contentsOfFile: file, encoding: .utf8)
        #expect(written.contains("\"outcome\" : \"handshake\""))

        let unwritable = try await BinaryRunner.run(["probe", "--output", "/nonexistent-dir/x.txt", "--ca-file", fixture.rootPath, fixture.url], timeout: 60)
        #expect(unwritable.status == 64)
        #expect(unwritable.stderr.contains("cannot write '/nonexistent-dir/x.txt'"))
    }
}

import Foundation
import Testing

/// Bad input gets one line naming it and exit 64, before any connection is tried.
@Suite struct InputErrorTests {
    @Test(arguments: [
        (["probe", ""], "empty target"),
        (["probe", "localhost:0"], "bad port '0'"),
        (["probe", "localhost:99999"], "bad port '99999'"),
        (["probe", "localhost:http"], "bad port 'http'"),
        (["probe", "ftp://localhost/"], "unsupported scheme 'ftp'"),
        (["probe", "https://"], "missing host"),
        (["probe", "[::1"], "unclosed '['"),
        (["probe", "bad_host!name"], "not a valid host name"),
        (["--ats-diagnostics", "gopher://x"], "unsupported scheme 'gopher'"),
        (["diagnose", "localhost:65536"], "bad port '65536'"),
    ])
    func badTargetIsOneLineAndExit64(arguments: [String], expected: String) async throws {
        let result = try await BinaryRunner.run(arguments, timeout: 30)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.contains(expected), "stderr: \(result.stderr)")
    }

    @Test func unknownRuleSetIsExit64() async throws {
        let result = try await BinaryRunner.run(["--ats-diagnostics", "--rules", "ios3", "localhost"], timeout: 30)
        #expect(result.status == 64)
        #expect(result.stderr.contains("unknown rule set or release 'ios3'"), "\(result.stderr)")
        #expect(result.stderr.contains("ios13 (iOS 13 - 15.3, macOS 10.15 - 12.2)"), "the message lists each set's releases")
    }

    @Test func unreadableCAFileIsExit64() async throws {
        let result = try await BinaryRunner.run(["probe", "--ca-file", "/nonexistent/roots.pem", "localhost"], timeout: 30)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("atsprobe: --ca-file '/nonexistent/roots.pem': cannot read file"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        let empty = try await BinaryRunner.run(["probe", "--ca-file", "/dev/null", "localhost"], timeout: 30)
        #expect(empty.status == 64)
        // A device is refused before it is read (docs/robustness.md: files are type-checked).
        #expect(empty.stderr == "atsprobe: --ca-file '/dev/null': cannot read file (is a character device, not a file)\n")
    }
}

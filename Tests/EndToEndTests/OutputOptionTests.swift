import ATSTestServers
import Foundation
import Testing
import TestSupport

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
        let files = try TemporaryDirectory(prefix: "atsprobe-output")
        defer { files.remove() }
        let directory = files.url
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

    /// A device is written through, never renamed over; a failed write is an error, not lost output.
    @Test func devicesAreWrittenThroughAndWriteFailuresReported() async throws {
        let refused = try unusedLoopbackPort()
        let target = "127.0.0.1:\(refused)"
        // /dev/stdout is a symlink to the pipe the runner reads: the text must arrive there.
        let throughLink = try await BinaryRunner.run(["probe", "--output", "/dev/stdout", target], timeout: 60)
        #expect(throughLink.status == 2)
        #expect(throughLink.stdout.contains("connection refused"), "\(throughLink.stdout)")
        // /dev/full accepts open(2) and fails every write with ENOSPC.
        for arguments in [["probe", target], ["audit", "--json", target], ["diagnose", "--format", "plist", target]] {
            let full = try await BinaryRunner.run(arguments + ["--output", "/dev/full"], timeout: 60)
            #expect(full.status == 64, "\(arguments): \(full.stderr)")
            #expect(full.stderr.contains("atsprobe: cannot write '/dev/full': No space left on device"), "\(arguments): \(full.stderr)")
        }
        var info = stat()
        #expect(lstat("/dev/full", &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR, "/dev/full must still be the device")
    }
}

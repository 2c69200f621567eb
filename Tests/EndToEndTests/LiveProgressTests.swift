import ATSTestServers
import Foundation
import Testing
import TestSupport
import TLSFacts

/// Live progress on a terminal only (issue 14, item 3). The binary runs under util-linux
/// `script`, which gives it a pseudo-terminal for stdin, stdout and stderr and copies what it
/// writes to our pipe. `script` is in bsdutils, essential in Debian: a missing one fails the test.
@Suite struct LiveProgressTests {
    static let script = "/usr/bin/script"

    /// Runs atsprobe with a terminal; stdout and stderr arrive merged, with CRLF line ends.
    static func onTerminal(_ arguments: [String], timeout: Double = 120) async throws -> (output: String, status: Int32) {
        try await offCooperativePool { try onTerminalBlocking(arguments, timeout: timeout) }
    }

    static func onTerminalBlocking(_ arguments: [String], timeout: Double) throws -> (output: String, status: Int32) {
        let command = ([BinaryRunner.binaryURL.path] + arguments).map { "'" + $0.replacing("'", with: "'\\''") + "'" }.joined(separator: " ")
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        environment["COLUMNS"] = "200"
        let process = try SpawnedProcess(script, ["-qfec", command, "/dev/null"], environment: environment)
        process.finish(within: timeout)
        return (String(decoding: process.stdout, as: UTF8.self), process.exitCode)
    }

    @Test
    func auditDrawsItsBarWithTheSilentHostAndItsTimeAndNothingWithQuiet() async throws {
        let silent = try HostileServer.start(.silent)
        defer { silent.stop() }
        let fixture = try ExceptionFixture()
        try await fixture.withServer { port in
            let arguments = ["audit", "--ca-file", fixture.rootPath, "--timeout", "3",
                             "https://127.0.0.1:\(port)/", "127.0.0.1:\(silent.port)"]
            let (output, status) = try await Self.onTerminal(arguments)
            #expect(status == 2)
            // The bar is drawn, names the silent host with its growing time, and is drawn again after a line.
            #expect(output.contains("\r\u{1B}[2K[##########..........] 1/2"), "\(output.debugDescription)")
            #expect(output.contains("1 running: 127.0.0.1:\(silent.port) 2 s"), "\(output.debugDescription)")
            let passLine = try #require(output.range(of: "PASS         https://127.0.0.1:\(port)/"))
            #expect(output[passLine.upperBound...].contains("\u{1B}[2K[##"), "the bar comes back after the line")
            #expect(output.contains("atsprobe audit: 2 targets: 1 pass, 1 unreachable"))

            let (quiet, _) = try await Self.onTerminal(arguments + ["--quiet"])
            #expect(!quiet.contains("\u{1B}[2K"))
            #expect(!quiet.contains("running"))
            #expect(!quiet.contains("atsprobe audit:"), "--quiet drops the summary")
            #expect(quiet.contains("PASS         https://127.0.0.1:\(port)/"))

            // stderr not a terminal: no progress.
            let piped = try await BinaryRunner.run(arguments, timeout: 120)
            #expect(!piped.stderr.contains("\u{1B}"))
            #expect(!piped.stderr.contains("running"))
        }
    }

    /// Issue 25: the bar counts targets, not the input file's lines (comments and blank lines
    /// are not targets), so a finished run shows N/N.
    @Test
    func theBarCountsTargetsNotLines() async throws {
        let fixture = try ExceptionFixture()
        let directory = try TemporaryDirectory(prefix: "atsprobe-progress")
        try await fixture.withServer { port in
            let input = try directory.write("hosts.txt", """
            # production hosts

            https://127.0.0.1:\(port)/   # the one target
            # end
            """)
            let (output, status) = try await Self.onTerminal(["audit", "--ca-file", fixture.rootPath, "--timeout", "3", "--input", input])
            #expect(status == 0, "\(output.debugDescription)")
            #expect(output.contains("] 1/1"), "\(output.debugDescription)")
            #expect(!output.contains("/4"), "\(output.debugDescription)")
        }
    }

    @Test
    func diagnosticsPrintTheirHeaderAtOnceWhileTheHostIsSilent() async throws {
        let silent = try HostileServer.start(.silent)
        defer { silent.stop() }
        let command = "'\(BinaryRunner.binaryURL.path)' --ats-diagnostics --timeout 8 127.0.0.1:\(silent.port)"
        let first = try await offCooperativePool { () -> String? in
            let process = try SpawnedProcess(Self.script, ["-qfec", command, "/dev/null"], environment: ProcessInfo.processInfo.environment)
            defer { process.finish(within: 60) }
            // Every handshake waits 8 s for the silent server; the header must not.
            return process.firstStdoutLine(within: 6)
        }
        #expect(first?.hasPrefix("Starting ATS Diagnostics") == true, "\(first ?? "nothing")")
    }

    @Test
    func streamedDiagnosticsEqualTheWholeText() async throws {
        let fixture = try ExceptionFixture()
        // TLS 1.0 only: the noSharedProtocol reasons wait for the other handshakes before they print.
        try await fixture.withServer(configure: { $0.minVersion = .tls10; $0.maxVersion = .tls10 }) { port in
            let arguments = ["diagnose", "--ca-file", fixture.rootPath, "--timeout", "5", "https://127.0.0.1:\(port)/"]
            func stable(_ text: String) -> String {
                text.replacing("\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false)
                    .filter { !$0.hasPrefix("Handshakes : ") }.joined(separator: "\n")
            }
            let (live, _) = try await Self.onTerminal(arguments)
            let piped = try await BinaryRunner.run(arguments, timeout: 120)
            #expect(piped.status == 1)
            #expect(stable(live) == stable(piped.stdout))
            #expect(live.contains("the server's highest protocol is TLS 1.0"))
        }
    }
}

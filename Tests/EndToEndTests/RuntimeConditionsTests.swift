import ATSTestServers
import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// What this machine does to a run that is not the server's doing (issue 40, items 2, 3, 4, 9):
/// a stop (SIGSTOP, a debugger), limits on descriptors and memory, an input FIFO whose writer
/// comes late. Each runs the built binary.
@Suite("Runtime conditions")
struct RuntimeConditionsTests {
    static func environment() -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        return environment
    }

    /// Waits, bounded, until `condition` holds; false at the deadline.
    static func wait(seconds: Double, until condition: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() >= end { return false }
            usleep(5_000)
        }
        return true
    }

    /// An audit stopped (SIGSTOP) for 12 s, longer than its --timeout (4 s) and than the
    /// watchdog's 10 s, while a probe waits for the server's answer, then continued (SIGCONT):
    /// the watchdog says nothing, the probes whose deadline passed during the stop are this
    /// machine's failures and are run again, and the passing server is reported `pass` (before:
    /// `exception`/`no-exception`, or exit 70 "the probe engine stopped answering").
    @Test func aStoppedAuditNeitherRaisesTheAlarmNorBlamesTheServer() async throws {
        let pki = try TestPKI()
        let root = try pki.writeRootPEM()
        // The first request is held unanswered: the stop lands while a probe waits on it.
        let hold = HTTPHold(count: 1)
        let server = try TestTLSServer.start(TLSServerConfiguration(identity: try pki.issue(CertificateSpec()), http: .held(hold, then: .ok)))
        defer { server.stop() }
        let url = "https://127.0.0.1:\(server.port)/"
        let (status, stdout, stderr, reachedHold) = try await offCooperativePool { () -> (Int32, String, String, Bool) in
            let process = try SpawnedProcess(BinaryRunner.binaryURL.path,
                                             ["audit", "--json", "--quiet", "--ca-file", root, "--timeout", "4", url],
                                             environment: Self.environment())
            let reached = Self.wait(seconds: 60) { hold.held >= 1 }
            kill(process.pid, SIGSTOP)
            // The stop itself (not a synchronisation): longer than --timeout and the watchdog's 10 s.
            usleep(12_000_000)
            kill(process.pid, SIGCONT)
            process.finish(within: 120)
            return (process.exitCode, String(decoding: process.stdout, as: UTF8.self), String(decoding: process.stderr, as: UTF8.self), reached)
        }
        #expect(reachedHold, "the audit never sent its request")
        #expect(!stderr.contains("stopped answering") && !stderr.contains("deadlock"), "\(stderr)")
        #expect(status == 0, "exit \(status): \(stderr)")
        let record = try #require(try AuditTests.records(stdout).first, "\(stdout)")
        #expect(record.verdict == "pass", "\(stdout)")
    }

    /// The same stop under `diagnose`, which does not retry: this machine's failure, exit 70
    /// and one line naming the stop, never a finding about the server (exit 1).
    @Test func aStoppedDiagnoseIsALocalFailure() async throws {
        let pki = try TestPKI()
        let root = try pki.writeRootPEM()
        let hold = HTTPHold(count: 1)
        let server = try TestTLSServer.start(TLSServerConfiguration(identity: try pki.issue(CertificateSpec()), http: .held(hold, then: .ok)))
        defer { server.stop() }
        let (status, stderr, stdout) = try await offCooperativePool { () -> (Int32, String, String) in
            let process = try SpawnedProcess(BinaryRunner.binaryURL.path,
                                             ["diagnose", "--ca-file", root, "--timeout", "3", "https://127.0.0.1:\(server.port)/"],
                                             environment: Self.environment())
            _ = Self.wait(seconds: 60) { hold.held >= 1 }
            kill(process.pid, SIGSTOP)
            usleep(5_000_000)  // the stop: longer than --timeout
            kill(process.pid, SIGCONT)
            process.finish(within: 120)
            return (process.exitCode, String(decoding: process.stderr, as: UTF8.self), String(decoding: process.stdout, as: UTF8.self))
        }
        #expect(status == 70, "exit \(status): \(stderr)\(stdout)")
        #expect(stderr.contains("this machine did not run for"), "\(stderr)")
    }

    /// `command` under `ulimit`: the shell sets the limit (soft and hard), then runs the binary.
    static func underLimit(_ limit: String, _ arguments: [String]) async throws -> ChildProcessResult {
        let quoted = ([BinaryRunner.binaryURL.path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        return try await ChildProcess.run("/bin/sh", ["-c", "ulimit \(limit) || exit 99; exec " + quoted.joined(separator: " ")],
                                          environment: environment(), timeout: 120)
    }

    /// Few descriptors or little address space: every command either runs or ends with exit 70
    /// and one line; never a trap (SIGILL, 132: the reactor's epoll/eventfd or an engine thread
    /// could not be made), never "bad input" (64: `cert` reading its file under EMFILE).
    /// (Below about 384 MiB of address space, allocations inside the Swift runtime and OpenSSL
    /// fail where no caller can see it: not covered.)
    @Test(arguments: ["-n 4", "-n 5", "-n 6", "-n 7", "-n 8", "-n 9", "-n 10", "-n 12", "-v 524288"])
    func resourceLimitsEndWithOneLineAndExit70(_ limit: String) async throws {
        let pki = try TestPKI()
        let root = try pki.writeRootPEM()
        let identity = try pki.issue(CertificateSpec())
        let server = try TestTLSServer.start(TLSServerConfiguration(identity: identity))
        defer { server.stop() }
        try await withTemporaryDirectory { directory in
            let chain = try directory.write("chain.pem", identity.certificatePEM + identity.chainPEM.joined())
            for arguments in [["diagnose", "--ca-file", root, "--timeout", "5", "https://127.0.0.1:\(server.port)/"],
                              ["cert", chain, "--host", "127.0.0.1", "--ca-file", root, "--no-aia"],
                              ["audit", "--quiet", "--ca-file", root, "--timeout", "5", "https://127.0.0.1:\(server.port)/"]] {
                let result = try await Self.underLimit(limit, arguments)
                // The one warning an audit may add first: its --concurrency capped by the limit.
                let lines = result.stderr.split(separator: "\n").filter { !$0.contains("needs more open files than the limit allows") }
                #expect(result.status != 99, "the shell refused ulimit \(limit)")
                #expect([0, 70].contains(result.status), "ulimit \(limit) \(arguments[0]): exit \(result.status): \(result.stderr)")
                if result.status == 70 {
                    #expect(lines.count == 1, "ulimit \(limit) \(arguments[0]): \(result.stderr)")
                    #expect(!result.stderr.contains("please report"), "ulimit \(limit) \(arguments[0]): \(result.stderr)")
                }
            }
        }
    }

    /// `audit --input FIFO` whose writer opens it after the audit has: the audit waits for the
    /// writer and reads its lines until it closes (before: EOF at once, exit 0, the lines lost).
    @Test func aFIFOsLateWriterIsRead() async throws {
        let pki = try TestPKI()
        let root = try pki.writeRootPEM()
        let server = try TestTLSServer.start(TLSServerConfiguration(identity: try pki.issue(CertificateSpec())))
        defer { server.stop() }
        try await withTemporaryDirectory { directory in
            let fifo = directory.path("targets")
            #expect(mkfifo(fifo, 0o600) == 0)
            let line = "https://127.0.0.1:\(server.port)/\n"
            let (status, stdout, stderr, wrote) = try await offCooperativePool { () -> (Int32, String, String, Bool) in
                let process = try SpawnedProcess(BinaryRunner.binaryURL.path,
                                                 ["audit", "--json", "--quiet", "--ca-file", root, "--timeout", "5", "--input", fifo],
                                                 environment: Self.environment())
                // The audit has the FIFO open (its /proc/PID/fd names it) before the writer comes.
                let opened = Self.wait(seconds: 60) {
                    let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.pid)/fd")) ?? []
                    return fds.contains { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(process.pid)/fd/\($0)")) == fifo }
                }
                // Non-blocking: with no reader left (the audit gone at EOF) this fails at once (ENXIO).
                let writer = opened ? open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC) : -1
                var wrote = false
                if writer >= 0 {
                    wrote = line.utf8.count == line.withCString { write(writer, $0, strlen($0)) }
                    close(writer)
                }
                process.finish(within: 120)
                return (process.exitCode, String(decoding: process.stdout, as: UTF8.self), String(decoding: process.stderr, as: UTF8.self), wrote)
            }
            #expect(wrote, "the audit no longer had the FIFO open when its writer came: \(stderr)")
            #expect(status == 0, "exit \(status): \(stderr)")
            let records = try AuditTests.records(stdout)
            #expect(records.map(\.verdict) == ["pass"], "\(stdout)")
        }
    }
}

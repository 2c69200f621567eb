import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with posix_spawn, its standard streams on pipes, and every wait
/// bounded by a deadline. (Foundation's Process can miss a child's exit on Linux and then spin
/// in `waitUntilExit` forever; this never waits without a deadline, and SIGKILLs at the end.)
package final class SpawnedProcess: @unchecked Sendable {
    package let pid: pid_t
    private var stdinFD: Int32
    private var stdoutFD: Int32
    private var stderrFD: Int32
    package private(set) var stdout: [UInt8] = []
    package private(set) var stderr: [UInt8] = []
    package private(set) var status: Int32?

    package struct SpawnError: Error, CustomStringConvertible {
        package var description: String
    }

    /// Starts `executable` with `arguments` and `environment`; `discardStderr` sends it to /dev/null,
    /// `stderrFile` to that file (created or truncated), for a long-running child whose log the
    /// test reads while it runs without having to drain a pipe.
    package init(_ executable: String, _ arguments: [String], environment: [String: String], discardStderr: Bool = false,
                stderrFile: String? = nil) throws {
        var inPipe: [Int32] = [0, 0], outPipe: [Int32] = [0, 0], errPipe: [Int32] = [0, 0]
        // pipe2(O_CLOEXEC) is not visible to Swift here; set the flag at once, so other tests'
        // children do not inherit these ends (which would delay EOF).
        for index in 0..<3 {
            let made = index == 0 ? pipe(&inPipe) : index == 1 ? pipe(&outPipe) : pipe(&errPipe)
            guard made == 0 else { throw SpawnError(description: "pipe: \(String(cString: strerror(errno)))") }
        }
        for fd in inPipe + outPipe + errPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        if let stderrFile {
            posix_spawn_file_actions_addopen(&actions, 2, stderrFile, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        } else if discardStderr {
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        } else {
            posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child = pid_t()
        let spawned = posix_spawn(&child, executable, &actions, nil, argv, envp)
        close(inPipe[0]); close(outPipe[1]); close(errPipe[1])
        guard spawned == 0 else {
            close(inPipe[1]); close(outPipe[0]); close(errPipe[0])
            throw SpawnError(description: "posix_spawn \(executable): \(String(cString: strerror(spawned)))")
        }
        pid = child
        stdinFD = inPipe[1]
        stdoutFD = outPipe[0]
        stderrFD = errPipe[0]
        if discardStderr || stderrFile != nil { close(errPipe[0]); stderrFD = -1 }
        signal(SIGPIPE, SIG_IGN)  // a child that exits early must not kill the test runner
    }

    deinit {
        if status == nil {
            kill(pid, SIGKILL)
            var raw: Int32 = 0
            waitpid(pid, &raw, 0)  // prompt after SIGKILL
        }
        for fd in [stdinFD, stdoutFD, stderrFD] where fd >= 0 { close(fd) }
    }

    package func writeStdin(_ text: String) { writeStdin(Array(text.utf8)) }

    /// Writes all of `bytes` (small inputs: the child's output is read only afterwards).
    package func writeStdin(_ bytes: [UInt8]) {
        guard stdinFD >= 0 else { return }
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { write(stdinFD, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return }
            offset += count
        }
    }

    package func closeStdin() {
        if stdinFD >= 0 { close(stdinFD); stdinFD = -1 }
    }

    /// Reads stdout until it holds a newline or `seconds` pass; the first line, or nil.
    package func firstStdoutLine(within seconds: Double) -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let end = stdout.firstIndex(of: UInt8(ascii: "\n")) { return String(decoding: stdout[..<end], as: UTF8.self) }
            if !pump(until: deadline), stdoutFD < 0 { break }
        }
        return stdout.firstIndex(of: UInt8(ascii: "\n")).map { String(decoding: stdout[..<$0], as: UTF8.self) }
    }

    /// Reads the output until stderr holds `text` or `seconds` pass (a server's "listening" log
    /// line); whether it does. The output read so far stays in `stdout` and `stderr`.
    package func stderrContains(_ text: String, within seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        func found() -> Bool { String(decoding: stderr, as: UTF8.self).contains(text) }
        while Date() < deadline {
            if found() { return true }
            if !pump(until: deadline), stderrFD < 0 { break }
        }
        return found()
    }

    /// Collects output until the child exits and its pipes close, or `seconds` pass. At the
    /// deadline: SIGTERM, 5 more seconds, then SIGKILL. Returns whether the deadline was hit.
    @discardableResult
    package func finish(within seconds: Double) -> Bool {
        closeStdin()
        if waitForExit(until: Date().addingTimeInterval(seconds)) { return false }
        kill(pid, SIGTERM)
        if !waitForExit(until: Date().addingTimeInterval(5)) {
            kill(pid, SIGKILL)
            var raw: Int32 = 0
            if waitpid(pid, &raw, 0) == pid { status = raw }
        }
        return true
    }

    /// The exit code, or 128 + signal for a killed child; -1 while it runs.
    package var exitCode: Int32 {
        guard let status else { return -1 }
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }

    private func waitForExit(until deadline: Date) -> Bool {
        while true {
            if status == nil {
                var raw: Int32 = 0
                if waitpid(pid, &raw, WNOHANG) == pid { status = raw }
            }
            // Done when the child is gone and both pipes reached EOF; a grandchild holding a
            // pipe open only delays this until the deadline.
            if status != nil && stdoutFD < 0 && stderrFD < 0 { return true }
            if Date() >= deadline { return status != nil }
            pump(until: min(deadline, Date().addingTimeInterval(0.05)))
        }
    }

    /// One poll on the open output pipes, reading what is there. False when nothing is open.
    @discardableResult
    private func pump(until deadline: Date) -> Bool {
        var fds: [pollfd] = []
        if stdoutFD >= 0 { fds.append(pollfd(fd: stdoutFD, events: Int16(POLLIN), revents: 0)) }
        if stderrFD >= 0 { fds.append(pollfd(fd: stderrFD, events: Int16(POLLIN), revents: 0)) }
        guard !fds.isEmpty else {
            // Nothing to read: wait on the child alone, still bounded (poll with no fds sleeps).
            _ = poll(nil, 0, Int32(max(0, min(50, deadline.timeIntervalSinceNow * 1000))))
            return false
        }
        let timeout = Int32(max(0, min(1000, deadline.timeIntervalSinceNow * 1000)))
        guard poll(&fds, nfds_t(fds.count), timeout) > 0 else { return true }
        for entry in fds where entry.revents != 0 {
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count > 0 {
                if entry.fd == stdoutFD { stdout += chunk[..<count] } else { stderr += chunk[..<count] }
            } else {
                close(entry.fd)
                if entry.fd == stdoutFD { stdoutFD = -1 } else { stderrFD = -1 }
            }
        }
        return true
    }
}

/// A finished child: what `ChildProcess.run` returns.
package struct ChildProcessResult: Sendable {
    package var status: Int32
    package var stdout: String
    package var stderr: String
    package var timedOut: Bool
    /// From spawn to exit, measured on the waiting thread: unlike a clock read after the await,
    /// it does not count the time the test task waits for a cooperative thread to resume on.
    package var elapsedSeconds: Double
}

/// The one way tests run a program to the end: spawned, its output drained while it runs, killed
/// at the deadline, and awaited off Swift's cooperative pool.
package enum ChildProcess {
    package static func run(_ executable: String, _ arguments: [String], stdin: String? = nil,
                           environment: [String: String] = ProcessInfo.processInfo.environment,
                           timeout: Double) async throws -> ChildProcessResult {
        try await offCooperativePool { try runBlocking(executable, arguments, stdin: stdin, environment: environment, timeout: timeout) }
    }

    /// The same, blocking the calling thread (for callers already off the cooperative pool).
    package static func runBlocking(_ executable: String, _ arguments: [String], stdin: String? = nil,
                                   environment: [String: String] = ProcessInfo.processInfo.environment,
                                   timeout: Double) throws -> ChildProcessResult {
        let started = Date()
        let process = try SpawnedProcess(executable, arguments, environment: environment)
        if let stdin { process.writeStdin(stdin) }
        let timedOut = process.finish(within: timeout)
        return ChildProcessResult(status: process.exitCode, stdout: String(decoding: process.stdout, as: UTF8.self),
                                  stderr: String(decoding: process.stderr, as: UTF8.self), timedOut: timedOut,
                                  elapsedSeconds: Date().timeIntervalSince(started))
    }
}

/// Runs blocking work (waiting on a process) on a thread of its own, so it never holds one of
/// Swift's few cooperative threads while other tests' servers and probes need them.
/// `body`, and all it captures, is released before the caller resumes: the thread lives on a
/// little after, and a `TemporaryDirectory` captured by `body` and released there was removed
/// after its test had ended; when that test was the run's last, the process exited mid-removal
/// and left the directory (ShutdownTests' records, 22 times in one day's runs).
package func offCooperativePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    let work = OneShot(body)
    return try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: work.run()) }.start()
    }
}

/// A closure run once and then let go, captures and all (`offCooperativePool`). Touched only by
/// the one thread that runs it.
private final class OneShot<T>: @unchecked Sendable {
    private var body: (@Sendable () throws -> T)?

    init(_ body: @escaping @Sendable () throws -> T) { self.body = body }

    func run() -> Swift.Result<T, Error> {
        guard let body else { return .failure(CancellationError()) }
        self.body = nil
        return Swift.Result { try body() }
    }
}

import Foundation
import Testing

/// Spawns the built `atsprobe` binary, drains stdout and stderr while it runs, and kills it
/// at a deadline so no test can hang.
struct BinaryRunner {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var timedOut: Bool
        /// From spawn to exit, measured on the waiting thread: unlike a clock read after the await,
        /// it does not count the time the test task waits for a cooperative thread to resume on.
        var elapsedSeconds: Double = 0
    }

    /// The binary sits beside the test bundle in the build products directory.
    static let binaryURL: URL = {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL,
            Bundle.main.bundleURL.deletingLastPathComponent(),
        ]
        for dir in candidates {
            let url = dir.appendingPathComponent("atsprobe")
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue { return url }
        }
        // swift test builds into .build/debug by default.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/atsprobe")
    }()

    /// Runs the binary on a thread of its own and awaits it, so waiting never holds one of
    /// Swift's few cooperative threads (other tests' servers and probes need them).
    static func run(_ arguments: [String], timeout: Double = 60, stdin: String? = nil,
                    environment extra: [String: String] = [:]) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Swift.Result { try runBlocking(arguments, timeout: timeout, stdin: stdin, environment: extra) })
            }
            thread.start()
        }
    }

    static func runBlocking(_ arguments: [String], timeout: Double, stdin: String? = nil,
                            environment extra: [String: String] = [:]) throws -> Result {
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        environment.merge(extra) { _, new in new }
        let started = Date()
        let process = try SpawnedProcess(binaryURL.path, arguments, environment: environment)
        if let stdin { process.writeStdin(stdin) }
        let timedOut = process.finish(within: timeout)
        return Result(status: process.exitCode, stdout: String(decoding: process.stdout, as: UTF8.self),
                      stderr: String(decoding: process.stderr, as: UTF8.self), timedOut: timedOut,
                      elapsedSeconds: Date().timeIntervalSince(started))
    }
}

/// Runs blocking work (waiting on a process) on a thread of its own, so it never holds one of
/// Swift's few cooperative threads while other tests' servers and probes need them.
func offCooperativePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Swift.Result { try body() }) }.start()
    }
}

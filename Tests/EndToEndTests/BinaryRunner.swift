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
        let process = Process()
        process.executableURL = binaryURL
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        environment.merge(extra) { _, new in new }
        process.environment = environment
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input

        let collected = Collected()
        let group = DispatchGroup()
        for (pipe, isOut) in [(out, true), (err, false)] {
            group.enter()
            DispatchQueue.global().async {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                collected.store(data, stdout: isOut)
                group.leave()
            }
        }
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try? input.fileHandleForWriting.close()

        let exited = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { process.waitUntilExit(); exited.signal() }
        var timedOut = false
        if exited.wait(timeout: .now() + timeout) == .timedOut {
            timedOut = true
            process.terminate()
            if exited.wait(timeout: .now() + 5) == .timedOut { kill(process.processIdentifier, SIGKILL); exited.wait() }
        }
        _ = group.wait(timeout: .now() + 10)
        return Result(status: process.terminationStatus, stdout: collected.stdout, stderr: collected.stderr, timedOut: timedOut)
    }

    final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var out = Data(), err = Data()
        func store(_ data: Data, stdout: Bool) { lock.lock(); if stdout { out = data } else { err = data }; lock.unlock() }
        var stdout: String { lock.lock(); defer { lock.unlock() }; return String(decoding: out, as: UTF8.self) }
        var stderr: String { lock.lock(); defer { lock.unlock() }; return String(decoding: err, as: UTF8.self) }
    }
}

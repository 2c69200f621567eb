import Foundation
import Testing
import TestSupport

/// Spawns the built `atsprobe` binary, drains stdout and stderr while it runs, and kills it
/// at a deadline so no test can hang.
struct BinaryRunner {
    typealias Result = ChildProcessResult

    /// The binary sits beside the test bundle in the build products directory.
    static let binaryURL: URL = {
        // Another build's binary, to run a test against older code (issue 39: the agreement table
        // checked against main's binary): ATSPROBE_TEST_BINARY=/path/to/atsprobe.
        if let other = ProcessInfo.processInfo.environment["ATSPROBE_TEST_BINARY"], !other.isEmpty {
            return URL(fileURLWithPath: other)
        }
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

    /// Runs the binary to the end (or `timeout`), awaited off Swift's cooperative pool.
    static func run(_ arguments: [String], timeout: Double = 60, stdin: String? = nil,
                    environment extra: [String: String] = [:]) async throws -> Result {
        try await offCooperativePool { try runBlocking(arguments, timeout: timeout, stdin: stdin, environment: extra) }
    }

    static func runBlocking(_ arguments: [String], timeout: Double, stdin: String? = nil,
                            environment extra: [String: String] = [:]) throws -> Result {
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        environment.merge(extra) { _, new in new }
        return try ChildProcess.runBlocking(binaryURL.path, arguments, stdin: stdin, environment: environment, timeout: timeout)
    }
}

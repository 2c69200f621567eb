import Foundation
import Testing
import TestSupport
import ATSTestServers

/// Helpers for the trust and pins end-to-end tests: the binary with an environment (SSL_CERT_FILE
/// makes a test root part of OpenSSL's system store, so public-root rules apply), files in a
/// fresh directory (`TemporaryDirectory`, removed with it), and the SPKI pin as the openssl
/// command line computes it.
enum TrustSupport {
    /// Runs the built binary with extra environment variables; bounded by `timeout`, awaited off
    /// the cooperative pool (a synchronous wait there starves other tests' servers and probes).
    static func run(_ arguments: [String], environment extra: [String: String] = [:], timeout: Double = 60) async throws -> BinaryRunner.Result {
        try await BinaryRunner.run(arguments, timeout: timeout, environment: extra)
    }

    /// A fresh directory under the temporary directory, removed when the value goes away.
    static func directory() throws -> TemporaryDirectory { try TemporaryDirectory(prefix: "atsprobe-trust") }

    static func write(_ text: String, named name: String, in directory: TemporaryDirectory) throws -> String {
        try directory.write(name, text)
    }

    /// Runs a shell pipeline (fixed text, paths from `directory()`), returning stdout; bounded.
    static func shell(_ script: String, timeout: Double = 30) throws -> (status: Int32, stdout: String) {
        let process = try SpawnedProcess("/bin/sh", ["-c", script], environment: ProcessInfo.processInfo.environment,
                                         discardStderr: true)
        process.finish(within: timeout)
        return (process.exitCode, String(decoding: process.stdout, as: UTF8.self))
    }

    /// SPKI-SHA256-BASE64 of a PEM certificate, by the openssl command line.
    static func opensslPin(_ pem: String) throws -> String {
        let result = try withTemporaryDirectory(prefix: "atsprobe-trust") { directory in
            let path = try directory.write("cert.pem", pem)
            return try shell("openssl x509 -in '\(path)' -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | openssl enc -base64")
        }
        #expect(result.status == 0)
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// UTC midnight of a day.
    static func utc(_ year: Int, _ month: Int, _ day: Int) -> Date { utcMidnight(year, month, day) }

    /// The FAIL blocks of nscurl-style output: the lines between "---" markers with a FAIL result.
    static func failBlocks(_ output: String) -> [String] {
        output.components(separatedBy: "---\n").filter { $0.contains("Result : FAIL") }
    }

    /// Starts `configuration`, runs `body` with the port, stops the server whatever happens.
    static func withServer<T>(_ configuration: TLSServerConfiguration, _ body: (Int) async throws -> T) async throws -> T {
        try await TestTLSServer.serving(configuration) { try await body($0.port) }
    }
}

import ATSTestServers
import Foundation
import TLSFacts
import Testing

/// Whole-output comparisons of the nscurl text format, plain and --verbose. The server is
/// reached as https://golden.test/ through --connect-to, so the text holds no port; the one
/// timing figure is masked. Set ATSPROBE_UPDATE_GOLDEN=1 to rewrite the files after a
/// deliberate change, then review the diff.
@Suite struct GoldenOutputTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    @Test(arguments: [
        ("tls11-only", TLSVersion.tls11, false),
        ("tls11-only-verbose", TLSVersion.tls11, true),
        ("modern", TLSVersion.tls13, false),
    ])
    func nscurlText(name: String, maxVersion: TLSVersion, verbose: Bool) async throws {
        let pki = try TestPKI()
        let root = try pki.writeRootPEM()
        let identity = try pki.issue(CertificateSpec(commonName: "golden.test", dnsNames: ["golden.test"], ipAddresses: [], key: .rsa(bits: 2048)))
        let minVersion: TLSVersion = maxVersion == .tls11 ? .tls11 : .tls12
        let server = try TestTLSServer.start(TLSServerConfiguration(identity: identity, minVersion: minVersion, maxVersion: maxVersion))
        defer { server.stop() }

        var arguments = ["--ats-diagnostics", "--ca-file", root, "--connect-to", "golden.test:443:127.0.0.1:\(server.port)"]
        if verbose { arguments.append("--verbose") }
        arguments.append("https://golden.test/")
        let result = try await BinaryRunner.run(arguments, timeout: 60)
        let text = Self.masked(result.stdout)

        let file = Self.directory.appendingPathComponent("\(name).txt")
        if ProcessInfo.processInfo.environment["ATSPROBE_UPDATE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(at: Self.directory, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
        }
        let golden = try String(contentsOf: file, encoding: .utf8)
        #expect(text == golden, "output differs from \(file.path); diff it against a run with ATSPROBE_UPDATE_GOLDEN=1")
        #expect(result.status == (maxVersion == .tls11 ? 1 : 0))
    }

    /// The run's duration is the only thing that changes between runs.
    static func masked(_ text: String) -> String {
        text.replacingOccurrences(of: #"tests, \d+ ms"#, with: "tests, N ms", options: .regularExpression)
    }
}

import ATSTestServers
import Foundation
import Testing
import TestSupport

/// Several targets, one merged dictionary: hosts that need nothing are left out, and
/// --include-subdomains writes one parent entry only when every probed subdomain shares the need.
@Suite struct ExceptionMultiHostTests {
    static let names = ["a.example.test", "b.example.test", "c.example.test"]

    /// A TLS 1.1-only server and a modern one, both answering for every test name.
    func withServers(_ body: (_ legacy: Int, _ modern: Int, _ root: String) async throws -> Void) async throws {
        let fixture = try ExceptionFixture()
        let spec = CertificateSpec(commonName: "a.example.test", dnsNames: Self.names, key: .rsa(bits: 2048))
        try await fixture.withServer(spec, configure: { $0.minVersion = .tls11; $0.maxVersion = .tls11 }) { legacy in
            try await fixture.withServer(spec, configure: { $0.minVersion = .tls12 }) { modern in
                try await body(legacy, modern, fixture.rootPath)
            }
        }
    }

    func run(_ arguments: [String], legacy: Int, modern: Int, root: String) async throws -> BinaryRunner.Result {
        let common = ["diagnose", "--format", "plist", "--ca-file", root, "--timeout", "10",
                      "--connect-to", ":\(legacy):127.0.0.1:\(legacy)", "--connect-to", ":\(modern):127.0.0.1:\(modern)"]
        let result = try await BinaryRunner.run(common + arguments, timeout: 120)
        #expect(!result.timedOut)
        return result
    }

    @Test func sharedNeedBecomesOneParentEntryOnlyWhenAsked() async throws {
        try await withServers { legacy, modern, root in
            let targets = ["https://b.example.test:\(legacy)/", "https://a.example.test:\(legacy)/"]
            let grouped = try await run(["--include-subdomains"] + targets, legacy: legacy, modern: modern, root: root)
            #expect(try PythonPlist.json(grouped.stdout)
                    == #"{"NSAppTransportSecurity": {"NSExceptionDomains": {"example.test": {"NSExceptionMinimumTLSVersion": "TLSv1.1", "NSIncludesSubdomains": true}}}}"#,
                    "stderr: \(grouped.stderr)")
            let separate = try await run(targets, legacy: legacy, modern: modern, root: root)
            #expect(try PythonPlist.json(separate.stdout)
                    == #"{"NSAppTransportSecurity": {"NSExceptionDomains": {"a.example.test": {"NSExceptionMinimumTLSVersion": "TLSv1.1"}, "b.example.test": {"NSExceptionMinimumTLSVersion": "TLSv1.1"}}}}"#)
            #expect(separate.status == 1)
            // Deterministic: keys sorted in the XML itself, whatever the target order.
            let a = try #require(separate.stdout.range(of: "<key>a.example.test</key>"))
            let b = try #require(separate.stdout.range(of: "<key>b.example.test</key>"))
            #expect(a.lowerBound < b.lowerBound)
            let again = try await run(targets.reversed(), legacy: legacy, modern: modern, root: root)
            #expect(again.stdout == separate.stdout)
        }
    }

    /// c.example.test needs nothing, so a parent entry would weaken it: separate entries, c left out.
    @Test func inputFileWithADifferentSubdomainKeepsEntriesSeparate() async throws {
        try await withServers { legacy, modern, root in
            let files = try TemporaryDirectory(prefix: "atsprobe-input")
            defer { files.remove() }
            let directory = files.url
            let list = directory.appendingPathComponent("targets.txt")
            try """
            # hosts to check
            https://a.example.test:\(legacy)/

            https://c.example.test:\(modern)/   # modern
            """.write(to: list, atomically: true, encoding: .utf8)
            let result = try await run(["--include-subdomains", "--input", list.path, "https://b.example.test:\(legacy)/"],
                                 legacy: legacy, modern: modern, root: root)
            #expect(try PythonPlist.json(result.stdout)
                    == #"{"NSAppTransportSecurity": {"NSExceptionDomains": {"a.example.test": {"NSExceptionMinimumTLSVersion": "TLSv1.1"}, "b.example.test": {"NSExceptionMinimumTLSVersion": "TLSv1.1"}}}}"#,
                    "stderr: \(result.stderr)")
            #expect(result.stderr.isEmpty, "stderr: \(result.stderr)")
        }
    }
}

/// --input errors are bad input: one line, exit 64, no connection.
@Suite struct ExceptionInputFileTests {
    @Test func unreadableInputIsExit64() async throws {
        let result = try await BinaryRunner.run(["diagnose", "--format", "plist", "--input", "/nonexistent/hosts.txt"], timeout: 30)
        #expect(result.status == 64)
        #expect(result.stderr == "atsprobe: cannot read --input '/nonexistent/hosts.txt': no such file or directory\n")
        #expect(result.stdout.isEmpty)
    }

    @Test func inputWithOnlyCommentsHasNoTargets() async throws {
        let result = try await BinaryRunner.run(["diagnose", "--input", "-"], timeout: 30, stdin: "# nothing here\n\n   # still nothing\n")
        #expect(result.status == 64)
        #expect(result.stderr.contains("give at least one target"))
    }
}

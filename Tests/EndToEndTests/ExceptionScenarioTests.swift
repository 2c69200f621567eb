import ATSTestServers
import Foundation
import Testing
import TLSFacts

/// `--format plist` for each loopback scenario: the dictionary python's plistlib reads equals
/// the minimal one exactly, and hosts no entry can help get nothing but a comment on stderr.
@Suite struct ExceptionScenarioTests {
    struct Scenario: CustomTestStringConvertible, Sendable {
        var name: String
        var key: TestKey = .rsa(bits: 2048)
        var hash: TestSignatureHash = .sha256
        var expired = false
        var selfSigned = false
        var minVersion: TLSVersion = .tls10
        var maxVersion: TLSVersion = .tls13
        var cipherList: String?
        /// The NSAppTransportSecurity dictionary as sorted JSON.
        var expected: String
        /// Whether stderr must carry "# localhost: no exception added".
        var unhelpable = false
        var testDescription: String { name }
    }

    static let localhost = #"{"NSAppTransportSecurity": {"NSExceptionDomains": {"localhost": %@}}}"#
    static func entry(_ json: String) -> String { localhost.replacingOccurrences(of: "%@", with: json) }
    static let empty = #"{"NSAppTransportSecurity": {}}"#

    static let scenarios: [Scenario] = [
        Scenario(name: "TLS 1.2+1.3 RSA-2048", minVersion: .tls12, expected: empty),
        Scenario(name: "TLS 1.1 only", minVersion: .tls11, maxVersion: .tls11,
                 expected: entry(#"{"NSExceptionMinimumTLSVersion": "TLSv1.1"}"#)),
        Scenario(name: "TLS 1.0 only", minVersion: .tls10, maxVersion: .tls10,
                 expected: entry(#"{"NSExceptionMinimumTLSVersion": "TLSv1.0"}"#)),
        Scenario(name: "static RSA only", maxVersion: .tls12, cipherList: "AES128-GCM-SHA256",
                 expected: entry(#"{"NSExceptionRequiresForwardSecrecy": false}"#)),
        Scenario(name: "TLS 1.1 + static RSA", minVersion: .tls11, maxVersion: .tls11, cipherList: "AES128-SHA",
                 expected: entry(#"{"NSExceptionMinimumTLSVersion": "TLSv1.1", "NSExceptionRequiresForwardSecrecy": false}"#)),
        // No Apple platform offers finite-field DHE (ats-reference 2): nothing helps.
        Scenario(name: "DHE only", maxVersion: .tls12, cipherList: "DHE-RSA-AES128-GCM-SHA256", expected: empty, unhelpable: true),
        // Documented rules: CHACHA20 is no ATS suite, but the platform offers it; only the
        // platform offer (PFS off + insecure HTTP, which turns ATS-required off) reaches it.
        Scenario(name: "ECDHE-RSA-CHACHA20-POLY1305 only", maxVersion: .tls12, cipherList: "ECDHE-RSA-CHACHA20-POLY1305",
                 expected: entry(#"{"NSExceptionAllowsInsecureHTTPLoads": true, "NSExceptionRequiresForwardSecrecy": false}"#)),
        Scenario(name: "expired", expired: true, expected: empty, unhelpable: true),
        Scenario(name: "self-signed without --ca-file", selfSigned: true, expected: empty, unhelpable: true),
        Scenario(name: "RSA-1024", key: .rsa(bits: 1024), expected: empty, unhelpable: true),
        Scenario(name: "SHA-1", hash: .sha1, expected: empty, unhelpable: true),
    ]

    static func run(_ scenario: Scenario, _ extra: [String] = ["--format", "plist"]) async throws -> BinaryRunner.Result {
        let fixture = try ExceptionFixture()
        var spec = CertificateSpec(key: scenario.key, signatureHash: scenario.hash)
        if scenario.expired {
            spec.notBefore = Date(timeIntervalSinceNow: -30 * 86_400)
            spec.notAfter = Date(timeIntervalSinceNow: -86_400)
        }
        let identity = scenario.selfSigned ? try TestPKI.selfSigned(spec) : nil
        return try await fixture.withServer(spec, identity: identity, configure: {
            $0.minVersion = scenario.minVersion
            $0.maxVersion = scenario.maxVersion
            $0.cipherList = scenario.cipherList
        }) { port in
            try await fixture.diagnose(port: port, extra, trustRoot: !scenario.selfSigned)
        }
    }

    @Test(arguments: scenarios)
    func minimalDictionary(_ scenario: Scenario) async throws {
        let result = try await Self.run(scenario)
        #expect(!result.timedOut)
        #expect(try PythonPlist.json(result.stdout) == scenario.expected, "stderr: \(result.stderr)")
        // Foundation reads it too, as XML.
        var format = PropertyListSerialization.PropertyListFormat.binary
        #expect(try PropertyListSerialization.propertyList(from: Data(result.stdout.utf8), format: &format) is [String: Any])
        #expect(format == .xml)
        let comment = "# localhost: no exception added for https://localhost:"
        #expect(result.stderr.contains(comment) == scenario.unhelpable, "stderr: \(result.stderr)")
        #expect(result.status == (scenario.expected == Self.empty && !scenario.unhelpable ? 0 : 1))
    }

    @Test func chachaNeedsNothingUnderAppleCode() async throws {
        let scenario = Self.scenarios.first { $0.name.hasPrefix("ECDHE-RSA-CHACHA20") }!
        let result = try await Self.run(scenario, ["--format", "plist", "--rules", "ios15.4"])
        #expect(try PythonPlist.json(result.stdout) == Self.empty, "stderr: \(result.stderr)")
    }

    /// Impossible cases name the fact: a suite no Apple platform offers, a protocol the rule set's platform lacks.
    @Test func impossibleReasonsNameTheFact() async throws {
        let dhe = Self.scenarios.first { $0.name == "DHE only" }!
        let dheRun = try await Self.run(dhe)
        #expect(dheRun.stderr.contains("TLS_DHE_RSA_WITH_AES_128_GCM_SHA256, which the platform (documented) does not offer"), "\(dheRun.stderr)")
        // iOS 26 no longer speaks TLS 1.1 with ATS off, but an explicit TLSv1.1 entry still sets the
        // minimum (SecProtocolConfiguration.m): the same entry is written.
        let tls11 = Self.scenarios.first { $0.name == "TLS 1.1 only" }!
        let ios26 = try await Self.run(tls11, ["--format", "plist", "--rules", "ios26"])
        #expect(try PythonPlist.json(ios26.stdout) == tls11.expected, "\(ios26.stderr)")
    }

    /// JSON: the same entry, each key with the observation behind it and the server-side fix.
    @Test func jsonCarriesEvidenceAndFixes() async throws {
        let tls11 = Self.scenarios.first { $0.name == "TLS 1.1 + static RSA" }!
        let result = try await Self.run(tls11, ["--json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let suggestion = try #require(document["suggestion"] as? [String: Any])
        #expect(suggestion["kind"] as? String == "exception")
        let exception = try #require(suggestion["exception"] as? [String: Any])
        #expect(exception["NSExceptionMinimumTLSVersion"] as? String == "TLSv1.1")
        #expect(exception["NSExceptionRequiresForwardSecrecy"] as? Bool == false)
        let evidence = try #require(suggestion["evidence"] as? [[String: Any]])
        #expect(evidence.map { $0["key"] as? String } == ["NSExceptionMinimumTLSVersion", "NSExceptionRequiresForwardSecrecy"])
        let version = evidence[0]["observation"] as? String ?? ""
        #expect(version.hasPrefix("server's highest protocol is TLS 1.1 (TLS_RSA_WITH_AES_128_CBC_SHA)"), "\(version)")
        let pfs = evidence[1]["observation"] as? String ?? ""
        #expect(pfs.hasPrefix("server chose TLS_RSA_WITH_AES_128_CBC_SHA under every offer it answered, never an ATS forward-secret suite"), "\(pfs)")
        let fixes = try #require(suggestion["fixes"] as? [[String: Any]])
        #expect(fixes.map { $0["keys"] as? [String] } == [["NSExceptionMinimumTLSVersion"], ["NSExceptionRequiresForwardSecrecy"]])
        let nginx = fixes[0]["nginx"] as? [String] ?? []
        #expect(nginx == ["ssl_protocols TLSv1.2 TLSv1.3;", "ssl_ciphers ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384;"])
        #expect(fixes[0]["apache"] as? [String] == ["SSLProtocol -all +TLSv1.2 +TLSv1.3", "SSLCipherSuite ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384"])
        // Issue 25: the fixes of one server merge per directive: the forward-secrecy fix does not
        // repeat the ssl_ciphers (SSLCipherSuite, HAProxy ciphers) the protocol fix already sets.
        #expect(fixes[1]["nginx"] as? [String] == ["ssl_prefer_server_ciphers on;"], "\(fixes[1])")
        #expect(fixes[1]["apache"] as? [String] == ["SSLHonorCipherOrder on"])
        #expect(fixes[1]["haproxy"] as? [String] == [])
        let everyNginxLine = fixes.flatMap { $0["nginx"] as? [String] ?? [] }
        #expect(everyNginxLine.filter { $0.hasPrefix("ssl_ciphers ") }.count == 1, "\(everyNginxLine)")
    }

    /// Text summary: the evidence and the better fix under the entry.
    @Test func textSummaryNamesEvidenceAndFix() async throws {
        let tls10 = Self.scenarios.first { $0.name == "TLS 1.0 only" }!
        let result = try await Self.run(tls10, [])
        #expect(result.stdout.contains("  NSExceptionMinimumTLSVersion: server's highest protocol is TLS 1.0 ("), "\(result.stdout)")
        #expect(result.stdout.contains("  Better fix for NSExceptionMinimumTLSVersion: enable TLS 1.2 and TLS 1.3 with ECDHE-RSA-AES128-GCM-SHA256"))
        // Each directive on its own line, saying whether it replaces the one in the block or is added.
        #expect(result.stdout.contains("    nginx  : replace ssl_protocols TLSv1.2 TLSv1.3;\n             replace ssl_ciphers ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384;\n"), "\(result.stdout)")
        #expect(result.stdout.contains("    Apache : replace SSLProtocol -all +TLSv1.2 +TLSv1.3\n             replace SSLCipherSuite ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384\n"))
    }
}

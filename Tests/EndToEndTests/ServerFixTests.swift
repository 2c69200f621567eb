import ATSTestServers
import Foundation
import Testing
import TLSFacts

/// A server fix for every failure class (issue 14, item 2), in text and JSON, and `probe`
/// carrying Apple's rules and CT in its JSON and exit status.
@Suite struct ServerFixTests {
    /// diagnose --json for one scenario: the suggestion object.
    static func suggestion(_ scenario: Scenario) async throws -> (suggestion: [String: Any], text: String) {
        let server = try ScenarioServer(scenario)
        defer { server.stop() }
        let base = ["diagnose", "--ca-file", server.rootPath, "--timeout", "5",
                    "--connect-to", ":\(server.server.port):127.0.0.1:\(server.server.port)", server.url]
        let json = try await BinaryRunner.run(base + ["--json"], timeout: 120)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let text = try await BinaryRunner.run(base, timeout: 120)
        return (try #require(root["suggestion"] as? [String: Any]), text.stdout)
    }

    static func fixes(_ suggestion: [String: Any]) -> [[String: Any]] {
        suggestion["fixes"] as? [[String: Any]] ?? []
    }

    @Test func aDHEOnlyServerIsToldToEnableECDHENamingWhatItSpeaks() async throws {
        let (suggestion, text) = try await Self.suggestion(.dheOnly)
        #expect(suggestion["kind"] as? String == "impossible")
        let fix = try #require(Self.fixes(suggestion).first)
        #expect((fix["change"] as? String)?.contains("the server speaks TLS_DHE_RSA_WITH_AES_128_GCM_SHA256") == true, "\(fix)")
        #expect((fix["nginx"] as? [String])?.first?.hasPrefix("ssl_ciphers ECDHE-RSA-") == true)
        #expect((fix["haproxy"] as? [String])?.contains { $0.hasPrefix("ssl-default-bind-ciphers ECDHE-") } == true)
        #expect(text.contains("  Server fix: the server speaks TLS_DHE_RSA_WITH_AES_128_GCM_SHA256: enable ECDHE-RSA-AES128-GCM-SHA256"))
        #expect(text.contains("    HAProxy: replace ssl-default-bind-options ssl-min-ver TLSv1.2"), "\(text)")
        // The reason names the suite once, not again in a trailing clause.
        let reason = suggestion["reason"] as? String ?? ""
        #expect(reason.components(separatedBy: "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256").count == 2, "\(reason)")
    }

    @Test(arguments: [
        (Scenario.expired, "expired"), (.rsa1024Leaf, "leaf key RSA 1024 bits"), (.sha1Leaf, "a SHA-1 signature"),
    ])
    func aCertificateProblemIsToldToReissueWithApplesParameters(scenario: Scenario, today: String) async throws {
        let (suggestion, text) = try await Self.suggestion(scenario)
        #expect(suggestion["kind"] as? String == "impossible")
        let change = Self.fixes(suggestion).compactMap { $0["change"] as? String }.first { $0.hasPrefix("reissue the certificate for localhost") }
        #expect(change?.contains("(today: \(today)") == true, "\(Self.fixes(suggestion))")
        // The chain ends at the test's root, given with --ca-file: a user-installed root, where
        // CT and the 398-day limit do not apply, so the advice asks for neither (issue 25).
        #expect(change?.contains("at most 398 days") == false, "\(change ?? "")")
        #expect(change?.contains("SCTs") == false, "\(change ?? "")")
        #expect(change?.contains("CT and the 398-day limit do not apply under a user-installed root") == true, "\(change ?? "")")
        #expect(text.contains("    nginx  : replace ssl_certificate /path/to/fullchain.pem;\n             replace ssl_certificate_key /path/to/key.pem;\n"), "\(text)")
        #expect(text.contains("    HAProxy: add     bind :443 ssl crt /path/to/fullchain-and-key.pem"))
    }

    @Test func aSelfSignedCertificateIsToldToComeFromAPublicCA() async throws {
        let (suggestion, _) = try await Self.suggestion(.selfSigned)
        let changes = Self.fixes(suggestion).compactMap { $0["change"] as? String }
        #expect(changes.contains { $0.hasPrefix("get a certificate from a CA in Apple's trust store") }, "\(changes)")
    }

    @Test func anOldProtocolGetsHAProxyLinesBesideNginxAndApache() async throws {
        let (suggestion, _) = try await Self.suggestion(.tls10Only)
        #expect(suggestion["kind"] as? String == "exception")
        let fix = try #require(Self.fixes(suggestion).first)
        #expect(fix["keys"] as? [String] == ["NSExceptionMinimumTLSVersion"])
        #expect(fix["haproxy"] as? [String] == ["ssl-default-bind-options ssl-min-ver TLSv1.2",
                                               "ssl-default-bind-ciphers ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384"])
        // Each fact once: the evidence does not repeat the highest protocol.
        let evidence = (suggestion["evidence"] as? [[String: Any]])?.first?["observation"] as? String ?? ""
        #expect(evidence.components(separatedBy: "highest protocol is TLS 1.0").count == 2, "\(evidence)")
    }

    @Test func probeJSONCarriesAppleRulesAndCTAndFailOnChoosesWhatFails() async throws {
        let fixture = try ExceptionFixture()
        // Trusted, but valid for 900 days: Apple's 825-day rule breaks.
        let spec = CertificateSpec(key: .rsa(bits: 2048), notBefore: Date(timeIntervalSinceNow: -86_400),
                                   notAfter: Date(timeIntervalSinceNow: 899 * 86_400))
        try await fixture.withServer(spec) { port in
            let base = ["probe", "https://localhost:\(port)/", "--connect-to", ":\(port):127.0.0.1:\(port)", "--ca-file", fixture.rootPath]
            let json = try await BinaryRunner.run(base + ["--json"], timeout: 60)
            #expect(json.status == 1, "Apple's rules are broken: exit 1 by default")
            let root = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            #expect(root["schemaVersion"] as? Int == 2)
            #expect(root["failed"] as? [String] == ["apple-rules"])
            let rules = try #require(root["appleRules"] as? [String: Any])
            #expect(rules["met"] as? Bool == false)
            #expect((rules["violations"] as? [[String: Any]])?.first?["rule"] as? String == "validity-825")
            #expect((root["certificateTransparency"] as? [String: Any])?["verdict"] as? String == "notRequired")
            #expect((root["run"] as? [String: Any])?["openSSLVersion"] != nil)

            let trustOnly = try await BinaryRunner.run(base + ["--fail-on", "trust"], timeout: 60)
            #expect(trustOnly.status == 0, "the chain is trusted")
            #expect(trustOnly.stdout.contains("Apple certificate rules: 1 broken"))
            let rulesOnly = try await BinaryRunner.run(base + ["--fail-on", "apple-rules"], timeout: 60)
            #expect(rulesOnly.status == 1)
            let none = try await BinaryRunner.run(base + ["--fail-on", "none"], timeout: 60)
            #expect(none.status == 0)
        }
    }
}

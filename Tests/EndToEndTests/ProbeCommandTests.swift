import ATSTestServers
import Foundation
import Testing

/// `atsprobe probe` end to end: the binary against loopback servers, text and JSON.
@Suite struct ProbeCommandTests {
    /// Facts `probe --json` reports for a scenario: protocol, suite code point, leaf key and hash.
    @Test(arguments: [
        (Scenario.modernRSA2048, "TLSv1.3", "TLS_AES_256_GCM_SHA384", "RSA", 2048, "sha256"),
        (.ecdsaP256, "TLSv1.3", "TLS_AES_256_GCM_SHA384", "EC", 256, "sha256"),
        (.ecdsaP384, "TLSv1.3", "TLS_AES_256_GCM_SHA384", "EC", 384, "sha256"),
        (.rsa4096, "TLSv1.3", "TLS_AES_256_GCM_SHA384", "RSA", 4096, "sha256"),
        (.tls12Only, "TLSv1.2", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "RSA", 2048, "sha256"),
        (.tls11Only, "TLSv1.1", "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", "RSA", 2048, "sha256"),
        (.tls10Only, "TLSv1.0", "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", "RSA", 2048, "sha256"),
        (.staticRSAOnly, "TLSv1.2", "TLS_RSA_WITH_AES_128_GCM_SHA256", "RSA", 2048, "sha256"),
        (.dheOnly, "TLSv1.2", "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256", "RSA", 2048, "sha256"),
        (.ecdheRSAChaCha20Only, "TLSv1.2", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "RSA", 2048, "sha256"),
        (.rsa1024Leaf, "TLSv1.3", "TLS_AES_256_GCM_SHA384", "RSA", 1024, "sha256"),
        (.sha1Leaf, "TLSv1.3", "TLS_AES_256_GCM_SHA384", "RSA", 2048, "sha1"),
    ])
    func facts(scenario: Scenario, version: String, suite: String, keyType: String, bits: Int, hash: String) async throws {
        let fixture = try ScenarioServer(scenario)
        defer { fixture.stop() }
        let result = try await BinaryRunner.run(["probe", "--json", "--ca-file", fixture.rootPath, fixture.url], timeout: 60)
        // A leaf that breaks Apple's certificate rules (RSA 1024, SHA-1) fails probe by default.
        let breaksAppleRules = bits < 2048 && keyType == "RSA" || hash == "sha1"
        #expect(result.status == (breaksAppleRules ? 1 : 0), "stderr: \(result.stderr)")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(root["schemaVersion"] as? Int == 2)
        #expect(root["failed"] as? [String] == (breaksAppleRules ? ["apple-rules"] : []))
        #expect(root["outcome"] as? String == "handshake")
        let observation = try #require(root["observation"] as? [String: Any])
        #expect(observation["protocolVersion"] as? String == version)
        #expect(observation["cipherSuite"] as? String == suite)
        let chain = try #require(observation["chain"] as? [[String: Any]])
        let key = try #require(chain.first?["publicKey"] as? [String: Any])
        #expect(key["algorithm"] as? String == keyType)
        #expect(key["bits"] as? Int == bits)
        #expect(chain.first?["signatureHash"] as? String == hash)
        let trust = try #require(observation["trust"] as? [String: Any])
        #expect((trust["problems"] as? [Any])?.isEmpty == true)
        #expect(trust["anchor"] as? String == "user")
    }

    /// Trust problems are reported one by one and give exit 1; the handshake facts are still there.
    @Test(arguments: [
        (Scenario.expired, "expired"),
        (.wrongHost, "nameMismatch"),
        (.unknownRoot, "incompleteChain"),
        (.selfSigned, "selfSigned"),
    ])
    func trustProblems(scenario: Scenario, kind: String) async throws {
        let fixture = try ScenarioServer(scenario)
        defer { fixture.stop() }
        var arguments = ["probe", "--json", fixture.url]
        if scenario.trustsTestRoot { arguments += ["--ca-file", fixture.rootPath] }
        let result = try await BinaryRunner.run(arguments, timeout: 60)
        #expect(result.status == 1, "stderr: \(result.stderr)")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let observation = try #require(root["observation"] as? [String: Any])
        #expect(observation["protocolVersion"] as? String == "TLSv1.3")
        let problems = (observation["trust"] as? [String: Any])?["problems"] as? [[String: Any]] ?? []
        #expect(problems.contains { $0["kind"] as? String == kind }, "problems: \(problems)")
    }

    /// Failures are typed, with exit 2 when nothing spoke TLS.
    @Test func failureKindsAndExitCodes() async throws {
        let closed = try unusedLoopbackPort()
        let plain = try HostileServer.start(.plainHTTP)
        defer { plain.stop() }
        let silent = try HostileServer.start(.silent)
        defer { silent.stop() }
        let alert = try HostileServer.start(.tlsAlert(40))
        defer { alert.stop() }
        for (port, kind, status) in [(closed, "connectionRefused", Int32(2)), (plain.port, "notTLS", 2), (silent.port, "handshakeTimeout", 1),
                                     (alert.port, "noSharedCipher", 1)] {
            let result = try await BinaryRunner.run(["probe", "--json", "--timeout", "1", "127.0.0.1:\(port)"], timeout: 60)
            #expect(result.status == status, "port \(port) \(kind): \(result.stderr)")
            let root = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            #expect(root["outcome"] as? String == "failure")
            #expect((root["failure"] as? [String: Any])?["kind"] as? String == kind)
        }
    }

    /// Text output: IPv6 literal, SNI off for IP targets, the facts a person reads.
    @Test func textOverIPv6() async throws {
        let pki = try TestPKI()
        let root = try pki.writeRootPEM()
        let server = try TestTLSServer.start(TLSServerConfiguration(identity: try pki.issue(CertificateSpec()), bindAddress: "::1"))
        defer { server.stop() }
        let result = try await BinaryRunner.run(["probe", "--ca-file", root, "[::1]:\(server.port)"], timeout: 60)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("Connected to ::1 port \(server.port) (no SNI)"))
        #expect(result.stdout.contains("Protocol         TLS 1.3"))
        #expect(result.stdout.contains("Trust            trusted (anchor: user-installed root"))
        #expect(result.stdout.contains("SANs       DNS:localhost, IP:127.0.0.1, IP:::1"))
    }

    /// --connect-to keeps the name for SNI and the checks; an internationalised name is sent as punycode.
    @Test func connectToWithInternationalisedName() async throws {
        let pki = try TestPKI()
        let root = try pki.writeRootPEM()
        let name = "xn--bcher-kva.test"
        let server = try TestTLSServer.start(TLSServerConfiguration(identity: try pki.issue(CertificateSpec(commonName: name, dnsNames: [name], ipAddresses: []))))
        defer { server.stop() }
        let result = try await BinaryRunner.run(["probe", "--json", "--ca-file", root, "--connect-to", "\(name):443:127.0.0.1:\(server.port)", "https://bücher.test/"], timeout: 60)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect((json["target"] as? [String: Any])?["host"] as? String == name)
        let observation = try #require(json["observation"] as? [String: Any])
        #expect(observation["serverName"] as? String == name)
        #expect(observation["port"] as? Int == server.port)
    }

    /// Names from the network are escaped before they reach a terminal.
    @Test func controlCharactersInCertificateNamesAreEscaped() async throws {
        let pki = try TestPKI()
        let root = try pki.writeRootPEM()
        let server = try TestTLSServer.start(TLSServerConfiguration(identity: try pki.issue(CertificateSpec(commonName: "evil\u{1B}[31mred"))))
        defer { server.stop() }
        let result = try await BinaryRunner.run(["probe", "--ca-file", root, "127.0.0.1:\(server.port)"], timeout: 60)
        #expect(!result.stdout.contains("\u{1B}"))
        // OpenSSL's RFC 2253 form already writes the byte as \1B; atsprobe keeps that as is.
        #expect(result.stdout.contains("CN=evil\\1B[31mred"), "stdout: \(result.stdout)")
    }
}

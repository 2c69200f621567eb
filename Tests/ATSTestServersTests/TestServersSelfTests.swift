import Foundation
import Testing
import TLSFacts
import ATSTestServers
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Checks the test servers and certificates against an independent client: the `openssl` command.
@Suite struct TestServersSelfTests {
    // MARK: Handshakes

    struct HandshakeCase: CustomTestStringConvertible, Sendable {
        let name: String
        let key: TestKey
        let minVersion: TLSVersion
        let maxVersion: TLSVersion
        let cipherList: String?
        let tls13Suites: String?
        let clientArguments: [String]
        let expectedProtocol: String
        let expectedCipher: String
        var testDescription: String { name }
    }

    static let handshakeCases: [HandshakeCase] = [
        HandshakeCase(name: "TLS 1.0 only, ECDHE-RSA", key: .rsa(bits: 2048), minVersion: .tls10, maxVersion: .tls10,
                      cipherList: "ECDHE-RSA-AES256-SHA", tls13Suites: nil,
                      clientArguments: ["-tls1", "-cipher", "ALL@SECLEVEL=0"],
                      expectedProtocol: "TLSv1", expectedCipher: "ECDHE-RSA-AES256-SHA"),
        HandshakeCase(name: "static RSA only, RSA-1024", key: .rsa(bits: 1024), minVersion: .tls12, maxVersion: .tls12,
                      cipherList: "AES128-SHA", tls13Suites: nil,
                      clientArguments: ["-cipher", "ALL@SECLEVEL=0"],
                      expectedProtocol: "TLSv1.2", expectedCipher: "AES128-SHA"),
        HandshakeCase(name: "DHE with ffdhe", key: .rsa(bits: 2048), minVersion: .tls12, maxVersion: .tls12,
                      cipherList: "DHE-RSA-AES128-GCM-SHA256", tls13Suites: nil,
                      clientArguments: ["-cipher", "ALL@SECLEVEL=0"],
                      expectedProtocol: "TLSv1.2", expectedCipher: "DHE-RSA-AES128-GCM-SHA256"),
        HandshakeCase(name: "TLS 1.3 only, ChaCha20", key: .ec(curve: .p384), minVersion: .tls13, maxVersion: .tls13,
                      cipherList: nil, tls13Suites: "TLS_CHACHA20_POLY1305_SHA256",
                      clientArguments: [],
                      expectedProtocol: "TLSv1.3", expectedCipher: "TLS_CHACHA20_POLY1305_SHA256"),
        HandshakeCase(name: "Ed25519 leaf over TLS 1.3", key: .ed25519, minVersion: .tls12, maxVersion: .tls13,
                      cipherList: nil, tls13Suites: nil, clientArguments: [],
                      expectedProtocol: "TLSv1.3", expectedCipher: "TLS_AES_256_GCM_SHA384"),
    ]

    @Test(arguments: handshakeCases)
    func negotiates(_ testCase: HandshakeCase) async throws {
        let identity = try TestPKI.selfSigned(CertificateSpec(key: testCase.key))
        let server = try TestTLSServer.start(TLSServerConfiguration(
            identity: identity, minVersion: testCase.minVersion, maxVersion: testCase.maxVersion,
            cipherList: testCase.cipherList, tls13Suites: testCase.tls13Suites))
        defer { server.stop() }

        let result = try await OpenSSLCommand.run(["s_client", "-connect", "127.0.0.1:\(server.port)", "-brief"]
                                            + testCase.clientArguments)
        #expect(result.field("Protocol version") == testCase.expectedProtocol, "\(result.output)")
        #expect(result.field("Ciphersuite") == testCase.expectedCipher, "\(result.output)")
        #expect(server.acceptedConnections == 1)
        #expect(server.completedHandshakes == 1)
    }

    @Test func refusesVersionsOutsideItsRange() async throws {
        let server = try TestTLSServer.start(TLSServerConfiguration(
            identity: try TestPKI.selfSigned(CertificateSpec()), minVersion: .tls12, maxVersion: .tls12))
        defer { server.stop() }
        let result = try await OpenSSLCommand.run(["s_client", "-connect", "127.0.0.1:\(server.port)", "-brief", "-tls1_3"])
        #expect(result.field("Protocol version") == nil)
        #expect(result.status != 0)
        #expect(server.completedHandshakes == 0)
    }

    @Test func servesOverIPv6() async throws {
        let server = try TestTLSServer.start(TLSServerConfiguration(
            identity: try TestPKI.selfSigned(CertificateSpec()), bindAddress: "::1"))
        defer { server.stop() }
        #expect(server.host == "::1")
        let result = try await OpenSSLCommand.run(["s_client", "-connect", "[::1]:\(server.port)", "-brief"])
        #expect(result.field("Protocol version") == "TLSv1.3", "\(result.output)")
    }

    // MARK: Chains, stapling, SCTs

    @Test func intermediateChainVerifiesAgainstTheRoot() async throws {
        let pki = try TestPKI(rootKey: .rsa(bits: 2048), withIntermediate: true)
        let identity = try pki.issue(CertificateSpec())
        #expect(identity.chainPEM == [pki.intermediatePEM])
        let rootFile = try pki.writeRootPEM()

        for sendChain in [true, false] {
            let server = try TestTLSServer.start(TLSServerConfiguration(identity: identity, sendChain: sendChain))
            defer { server.stop() }
            let result = try await OpenSSLCommand.run(["s_client", "-connect", "127.0.0.1:\(server.port)", "-brief",
                                                 "-CAfile", rootFile, "-verify_return_error",
                                                 "-verify_hostname", "localhost"])
            if sendChain {
                #expect(result.status == 0, "\(result.output)")
                #expect(result.field("Verification") == "OK", "\(result.output)")
            } else {
                // Without the intermediate the leaf cannot chain to the root.
                #expect(result.status != 0)
                #expect(result.output.contains("unable to get local issuer certificate"), "\(result.output)")
            }
        }
    }

    @Test func staplesAnOCSPResponseThatVerifies() async throws {
        let pki = try TestPKI()
        let identity = try pki.issue(CertificateSpec())
        let now = Date()
        let der = try pki.ocspResponse(for: identity, thisUpdate: now.addingTimeInterval(-3600),
                                       nextUpdate: now.addingTimeInterval(86_400))
        let files = try TemporaryDirectory(prefix: "atsprobe-selftest")
        let rootFile = try files.write("root.pem", pki.rootPEM)
        let leafFile = try files.write("leaf.pem", identity.certificatePEM)
        let responseFile = try files.write("response.der", der)

        let offline = try await OpenSSLCommand.run(["ocsp", "-respin", responseFile, "-issuer", rootFile,
                                              "-cert", leafFile, "-CAfile", rootFile])
        #expect(offline.output.contains("Response verify OK"), "\(offline.output)")
        #expect(offline.output.contains("\(leafFile): good"), "\(offline.output)")

        let server = try TestTLSServer.start(TLSServerConfiguration(identity: identity, ocspResponseDER: der))
        defer { server.stop() }
        let stapled = try await OpenSSLCommand.run(["s_client", "-connect", "127.0.0.1:\(server.port)", "-status"])
        #expect(stapled.output.contains("OCSP Response Status: successful"), "\(stapled.output)")
        #expect(stapled.output.contains("Cert Status: good"), "\(stapled.output)")
        let unasked = try await OpenSSLCommand.run(["s_client", "-connect", "127.0.0.1:\(server.port)", "-brief"])
        #expect(!unasked.output.contains("OCSP Response Status"))
    }

    @Test(arguments: [TLSVersion.tls12, .tls13])
    func sendsTheSCTExtensionWhenAsked(_ version: TLSVersion) async throws {
        let pki = try TestPKI()
        let identity = try pki.issue(CertificateSpec())
        let list = serializedSCTList([TestSCT(logID: TestSCT.logID(7), timestamp: Date(timeIntervalSince1970: 1_600_000_000))])
        let server = try TestTLSServer.start(TLSServerConfiguration(
            identity: identity, minVersion: version, maxVersion: version, sctListExtension: list))
        defer { server.stop() }
        // -ct makes the client ask for SCTs; an empty log list stands in for the system one this machine lacks.
        let files = try TemporaryDirectory(prefix: "atsprobe-selftest")
        let logList = try files.write("ct_log_list.cnf", "enabled_logs = \n")
        let result = try await OpenSSLCommand.run(["s_client", "-connect", "127.0.0.1:\(server.port)", "-ct", "-ctlogfile", logList])
        #expect(result.output.contains("SCTs present (1)"), "\(result.output)")
        #expect(result.output.contains("07:07:07:07"), "\(result.output)")
    }

    // MARK: HTTP and concurrency

    @Test func answersHTTPPerPath() async throws {
        let server = try TestTLSServer.start(TLSServerConfiguration(
            identity: try TestPKI.selfSigned(CertificateSpec()),
            http: .perPath(["/": .ok, "/old": .redirect(to: "https://localhost/new"), "/broken": .status(503)])))
        defer { server.stop() }
        func get(_ path: String) async throws -> String {
            try await OpenSSLCommand.run(["s_client", "-connect", "127.0.0.1:\(server.port)", "-quiet", "-ign_eof"],
                                   input: "GET \(path) HTTP/1.1\r\nHost: localhost\r\n\r\n").stdout
        }
        #expect(try await get("/").hasPrefix("HTTP/1.1 200 OK\r\n"))
        let redirect = try await get("/old?x=1")
        #expect(redirect.hasPrefix("HTTP/1.1 301 Moved Permanently\r\n"), "\(redirect)")
        #expect(redirect.contains("\r\nLocation: https://localhost/new\r\n"))
        #expect(try await get("/broken").hasPrefix("HTTP/1.1 503 Service Unavailable\r\n"))
        #expect(try await get("/missing").hasPrefix("HTTP/1.1 404 Not Found\r\n"))
    }

    @Test func handlesConcurrentHandshakes() async throws {
        let server = try TestTLSServer.start(TLSServerConfiguration(identity: try TestPKI.selfSigned(CertificateSpec())))
        defer { server.stop() }
        let port = server.port
        let protocols = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    try await OpenSSLCommand.run(["s_client", "-connect", "127.0.0.1:\(port)", "-brief"]).field("Protocol version")
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(protocols == Array(repeating: "TLSv1.3", count: 12))
        #expect(server.acceptedConnections == 12)
        #expect(server.completedHandshakes == 12)
    }

    /// The servers' errors say what failed with a code (and errno for a system call), not only
    /// in their text (issue 39, item 7). Nothing is sent: a bind fails locally.
    @Test func refusedAddressesSayWhyWithACode() throws {
        let identity = try TestPKI.selfSigned(CertificateSpec())
        let notAnAddress = #expect(throws: TestServerError.self) {
            try TestTLSServer.start(TLSServerConfiguration(identity: identity, bindAddress: "127.0.0.300"))
        }
        #expect(notAnAddress?.code == .badArgument)
        // TEST-NET-1 (RFC 5737) is no address of this machine: bind(2) refuses it.
        let notLocal = #expect(throws: TestServerError.self) {
            try TestTLSServer.start(TLSServerConfiguration(identity: identity, bindAddress: "192.0.2.1"))
        }
        #expect(notLocal?.code == .system)
        #expect(notLocal?.errno == EADDRNOTAVAIL, "\(String(describing: notLocal))")
        let dns = #expect(throws: TestServerError.self) { try LoopbackDNSServer(names: [:], bindAddress: "192.0.2.1") }
        #expect(dns?.code == .badArgument)
    }

    @Test func stopIsQuickAndIdempotentWithConnectionsOpen() async throws {
        // 127.0.0.2, where no other test listens: once this server stops, nothing can take its
        // port there, so the refused connection below cannot be another test's server answering.
        let server = try TestTLSServer.start(TLSServerConfiguration(identity: try TestPKI.selfSigned(CertificateSpec()),
                                                                    bindAddress: "127.0.0.2"))
        let clients = try (0..<3).map { _ in try RawClient(port: server.port, address: 0x7F00_0002) }
        defer { clients.forEach { $0.close() } }
        for client in clients { client.send([0x16, 0x03, 0x01]) }  // a partial record leaves SSL_accept blocked
        try Self.waitUntil { server.acceptedConnections == 3 }
        let started = Date()
        server.stop()
        server.stop()
        #expect(Date().timeIntervalSince(started) < 2)
        #expect(clients.allSatisfy { $0.receive(timeoutMilliseconds: 1000) == .closed })
        #expect(throws: (any Error).self) { try RawClient(port: server.port, address: 0x7F00_0002) }
    }

    // MARK: Hostile servers

    @Test func silentServerAcceptsAndNeverAnswers() async throws {
        let server = try HostileServer.start(.silent)
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        defer { client.close() }
        client.send(Self.fakeClientHello)
        #expect(client.receive(timeoutMilliseconds: 500) == .nothing)
        #expect(server.acceptedConnections == 1)
        let started = Date()
        server.stop()
        #expect(Date().timeIntervalSince(started) < 2)
    }

    @Test func hostileServersMisbehaveAsDescribed() async throws {
        let expectations: [(HostileBehavior, (RawClient.Reply) -> Bool)] = [
            (.plainHTTP, { if case .data(let bytes) = $0 { String(decoding: bytes, as: UTF8.self).hasPrefix("HTTP/1.1 400") } else { false } }),
            (.resetOnAccept, { $0 == .reset }),
            (.closeOnAccept, { $0 == .closed }),
            (.garbage, { if case .data(let bytes) = $0 { bytes.count == 64 && bytes[0] == 0x7F } else { false } }),
            (.closeAfterClientHello, { $0 == .closed }),
            (.tlsAlert(40), { $0 == .data([0x15, 0x03, 0x01, 0x00, 0x02, 0x02, 40]) }),
        ]
        for (behavior, isExpected) in expectations {
            let server = try HostileServer.start(behavior)
            defer { server.stop() }
            let client = try RawClient(port: server.port)
            defer { client.close() }
            if behavior != .resetOnAccept && behavior != .closeOnAccept { client.send(Self.fakeClientHello) }
            else { try Self.waitUntil { server.acceptedConnections == 1 } }
            let reply = client.receive(timeoutMilliseconds: 3000)
            #expect(isExpected(reply), "\(behavior): \(reply)")
        }
    }

    @Test func unusedPortRefusesConnections() async throws {
        let port = try unusedLoopbackPort()
        #expect(port > 0)
        #expect(throws: (any Error).self) { try RawClient(port: port) }
    }

    /// A handshake record header and a small body: enough for servers that read "a ClientHello".
    static let fakeClientHello: [UInt8] = [0x16, 0x03, 0x01, 0x00, 0x04, 0x01, 0x00, 0x00, 0x00]

    // MARK: Certificates

    @Test func certificatesSayWhatTheSpecAsked() async throws {
        let pki = try TestPKI(rootKey: .rsa(bits: 2048), rootSignatureHash: .sha1)
        let notBefore = ISO8601DateFormatter().date(from: "2019-03-01T00:00:00Z")!
        let identity = try pki.issue(CertificateSpec(
            commonName: "old.example", dnsNames: ["old.example", "*.old.example"], ipAddresses: ["127.0.0.1"],
            key: .rsa(bits: 2047), signatureHash: .sha1, notBefore: notBefore,
            notAfter: notBefore.addingTimeInterval(398 * 86_400), extendedKeyUsage: nil,
            embeddedSCTs: [TestSCT(logID: TestSCT.logID(9), timestamp: notBefore)]))
        let text = try await OpenSSLCommand.certificateText(identity.certificatePEM)
        #expect(text.contains("Public-Key: (2047 bit)"), "\(text)")
        #expect(text.contains("Signature Algorithm: sha1WithRSAEncryption"))
        #expect(text.contains("Not Before: Mar  1 00:00:00 2019 GMT"), "\(text)")
        #expect(text.contains("Not After : Apr  2 00:00:00 2020 GMT"), "\(text)")  // 398 days later (2020 is a leap year)
        #expect(text.contains("DNS:old.example, DNS:*.old.example, IP Address:127.0.0.1"))
        #expect(!text.contains("Extended Key Usage"))
        #expect(text.contains("CT Precertificate SCTs"))
        #expect(text.contains("09:09:09:09"))
        #expect(text.contains("Issuer: CN = atsprobe Test Root"))

        let rootText = try await OpenSSLCommand.certificateText(pki.rootPEM)
        #expect(rootText.contains("CA:TRUE"))
        #expect(rootText.contains("Signature Algorithm: sha1WithRSAEncryption"))
    }

    @Test(arguments: [(TestKey.ec(curve: .p256), "Public-Key: (256 bit)", "ecdsa-with-SHA384", TestSignatureHash.sha384),
                      (.ec(curve: .p521), "Public-Key: (521 bit)", "ecdsa-with-SHA512", .sha512),
                      (.ed25519, "ED25519 Public-Key", "ED25519", .sha256)])
    func keysAndSignatureAlgorithms(_ key: TestKey, _ keyText: String, _ algorithm: String, _ hash: TestSignatureHash) async throws {
        let identity = try TestPKI.selfSigned(CertificateSpec(key: key, signatureHash: hash))
        let text = try await OpenSSLCommand.certificateText(identity.certificatePEM)
        #expect(text.contains(keyText), "\(text)")
        #expect(text.contains("Signature Algorithm: \(algorithm)"), "\(text)")
        #expect(text.contains("TLS Web Server Authentication"))
        #expect(text.contains("DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1"), "\(text)")
    }

    @Test func spkiHashMatchesOpenSSL() async throws {
        let identity = try TestPKI.selfSigned(CertificateSpec())
        let files = try TemporaryDirectory(prefix: "atsprobe-selftest")
        let leaf = try files.write("leaf.pem", identity.certificatePEM)
        let spki = files.path("spki.der")
        _ = try await OpenSSLCommand.run(["x509", "-in", leaf, "-noout", "-pubkey", "-out", files.path("pub.pem")])
        _ = try await OpenSSLCommand.run(["pkey", "-pubin", "-in", files.path("pub.pem"), "-outform", "DER", "-out", spki])
        let digest = try await OpenSSLCommand.run(["dgst", "-sha256", "-binary", "-out", files.path("hash"), spki])
        #expect(digest.status == 0)
        let hash = try Data(contentsOf: URL(fileURLWithPath: files.path("hash")))
        #expect(identity.spkiSHA256Base64 == hash.base64EncodedString())
    }
}

// MARK: Helpers, nested so they cannot collide with other files in this test target

extension TestServersSelfTests {
    /// Polls a condition for at most `seconds` (bounded wait for another thread's bookkeeping).
    static func waitUntil(seconds: TimeInterval = 3, _ condition: () -> Bool) throws {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while !condition() {
            guard Date() < deadline else { throw TestServerError(.timedOut, "condition not met within \(seconds) s") }
            usleep(5_000)
        }
    }

    /// Runs the `openssl` command with a time limit (TestSupport drains its output as it runs),
    /// awaited off the cooperative pool.
    enum OpenSSLCommand {
        struct Result {
            let status: Int32
            let stdout: String
            let stderr: String
            var output: String { stdout + stderr }

            /// A "Name: value" line from `s_client -brief`.
            func field(_ name: String) -> String? {
                output.split(separator: "\n").first { $0.hasPrefix(name + ": ") }
                    .map { String($0.dropFirst(name.count + 2)).trimmingCharacters(in: .whitespaces) }
            }
        }

        static func run(_ arguments: [String], input: String? = nil, timeoutSeconds: Int = 20) async throws -> Result {
            let finished = try await ChildProcess.run("/usr/bin/env", ["openssl"] + arguments, stdin: input ?? "",
                                                        timeout: Double(timeoutSeconds))
            if finished.timedOut { throw TestServerError(.timedOut, "openssl \(arguments.joined(separator: " ")) timed out") }
            return Result(status: finished.status, stdout: finished.stdout, stderr: finished.stderr)
        }

        static func certificateText(_ pem: String) async throws -> String {
            let files = try TemporaryDirectory(prefix: "atsprobe-selftest")
            let result = try await run(["x509", "-noout", "-text", "-in", try files.write("cert.pem", pem)])
            guard result.status == 0 else { throw TestServerError(.toolFailed, "openssl x509 failed: \(result.stderr)") }
            return result.stdout
        }
    }

    /// A plain TCP client on 127.0.0.1 for poking the hostile servers.
    final class RawClient {
        enum Reply: Equatable { case data([UInt8]), closed, reset, nothing, failed(Int32) }

        private let fd: Int32

        /// `address`: an IPv4 loopback address, host order (127.0.0.1 unless a test needs its own).
        init(port: Int, address ipv4: UInt32 = 0x7F00_0001) throws {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw TestServerError(.system, "socket failed", errno: errno) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port)).bigEndian
            address.sin_addr.s_addr = in_addr_t(ipv4).bigEndian
            let connected = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 else {
                Glibc.close(fd)
                throw TestServerError(.system, "connect to port \(port) failed (errno \(errno))", errno: errno)
            }
        }

        func send(_ bytes: [UInt8]) {
            _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }

        /// Waits up to the timeout for something to happen, then reads what there is (up to 4 KiB, until the first gap).
        func receive(timeoutMilliseconds: Int32) -> Reply {
            var pollFD = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pollFD, 1, timeoutMilliseconds) > 0 else { return .nothing }
            var collected: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while collected.count < 4096 {
                let count = recv(fd, &buffer, buffer.count, 0)
                if count > 0 {
                    collected += buffer.prefix(count)
                    // Gather the rest of a burst; the servers send each answer in one write.
                    var more = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                    if poll(&more, 1, 200) > 0 { continue }
                    return .data(collected)
                }
                if !collected.isEmpty { return .data(collected) }
                if count == 0 { return .closed }
                return errno == ECONNRESET ? .reset : .failed(errno)
            }
            return .data(collected)
        }

        func close() { Glibc.close(fd) }
    }
}

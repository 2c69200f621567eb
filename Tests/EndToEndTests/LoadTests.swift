import ATSPolicy
import ATSTestServers
import Foundation
import Testing
import TestSupport

/// Loads as URLSession makes them (issue 12): HTTP/2 when the server selects h2, http:// loaded
/// for real, redirects up to 16 hops. Each under the default rule set (iOS 26) and `documented`,
/// the server reached as atsprobe.test (a qualified name, so ATS applies).
@Suite struct LoadTests {
    static let allPass = String(repeating: "P", count: NSCurlMatrix.count)
    /// Rows that allow insecure HTTP loads for the host (or all loads), by role.
    static let cleartextAllowed = String(NSCurlMatrix.roles.map { role -> Character in
        if case .exception(let keys) = role { return keys.insecureHTTP ? "P" : "F" }
        return role == .allowAllLoads ? "P" : "F"
    })

    struct Fixture {
        let pki: TestPKI
        let root: String
        init() throws {
            pki = try TestPKI()
            root = try pki.writeRootPEM()
        }
        func serve(_ configure: (inout TLSServerConfiguration) -> Void = { _ in }) throws -> TestTLSServer {
            var configuration = TLSServerConfiguration(
                // EC P-256: quick to generate, so the suite's shared threads stay free.
                identity: try pki.issue(CertificateSpec(dnsNames: ["atsprobe.test"], ipAddresses: [])),
                minVersion: .tls12)
            configure(&configuration)
            return try TestTLSServer.start(configuration)
        }
        func diagnose(_ scheme: String, port: Int, path: String = "/", rules: String) async throws -> (BinaryRunner.Result, DiagnosticsJSONView) {
            let result = try await BinaryRunner.run(["--ats-diagnostics", "--json", "--timeout", "3", "--rules", rules,
                                                     "--ca-file", root, "--connect-to", "atsprobe.test:\(port):127.0.0.1:\(port)",
                                                     "\(scheme)://atsprobe.test:\(port)\(path)"], timeout: 60)
            #expect(!result.timedOut)
            return (result, try DiagnosticsJSONView(result.stdout))
        }
    }

    // MARK: - HTTP/2

    /// A server that accepts only h2 and refuses anything else with no_application_protocol
    /// passes, its redirect followed over HTTP/2 (issue 12, item 3).
    @Test(arguments: ["ios26", "documented"])
    func h2OnlyServerPasses(rules: String) async throws {
        let fixture = try Fixture()
        let server = try fixture.serve {
            $0.alpn = ["h2"]
            $0.alpnMismatchIsFatal = true
            $0.http = .perPath(["/": .redirect(to: "/landing"), "/landing": .ok])
        }
        defer { server.stop() }
        let (result, json) = try await fixture.diagnose("https", port: server.port, rules: rules)
        #expect(json.rows == Self.allPass, "\(result.stdout)")
        #expect(result.status == 0)
        #expect(result.stdout.contains("\"alpn\" : \"h2\""))
        #expect(result.stdout.contains("landing"))
    }

    /// An h2 server whose 404 or redirect to nowhere is judged as over HTTP/1.1.
    @Test func h2StatusIsReadFromHPACK() async throws {
        let fixture = try Fixture()
        let server = try fixture.serve { $0.alpn = ["h2", "http/1.1"]; $0.http = .status(404) }
        defer { server.stop() }
        let (result, json) = try await fixture.diagnose("https", port: server.port, rules: "ios26")
        #expect(json.rows == Self.allPass)
        #expect(result.stdout.contains("\"statusCode\" : 404"), "\(result.stdout)")
        #expect(result.stdout.contains("atsprobe-test-h2"))
    }

    /// A server that speaks h2 badly ends within the deadline with a typed failure (-1005), and
    /// every row keeps its result.
    @Test(arguments: [HTTP2Fault.oversizedFrame, .endlessContinuation, .undecodableHeaders, .goAway])
    func badH2EndsWithATypedFailure(_ fault: HTTP2Fault) async throws {
        let fixture = try Fixture()
        let server = try fixture.serve { $0.alpn = ["h2"]; $0.http2Fault = fault }
        defer { server.stop() }
        let (result, json) = try await fixture.diagnose("https", port: server.port, rules: "ios26")
        // The binary's own clock (the wall clock here depends on the machine's load): every
        // request is bounded by --timeout 3, and all run at once.
        #expect(json.wallMilliseconds < 15_000)
        #expect(json.tests.count == NSCurlMatrix.count)
        #expect(json.rows == String(repeating: "F", count: NSCurlMatrix.count), "\(fault): \(result.stdout)")
        let first = try #require(json.tests.first)
        #expect(first.errorCode == -1005)
        #expect(first.reasons.first?.contains("HTTP/2") == true, "\(fault): \(first.reasons)")
    }

    // MARK: - http://

    /// An http:// URL: where ATS blocks cleartext -1022 without connecting, where it allows it a
    /// real GET that passes on any answer (issue 12, item 4).
    @Test(arguments: ["ios26", "documented"])
    func cleartextAnsweringServer(rules: String) async throws {
        let fixture = try Fixture()
        let server = try CleartextHTTPServer.start(.status(404))
        defer { server.stop() }
        let (result, json) = try await fixture.diagnose("http", port: server.port, rules: rules)
        #expect(json.rows == Self.cleartextAllowed, "\(result.stdout)")
        #expect(json.reachability == "answered")
        #expect(json.tests.first?.errorCode == -1022)
        #expect(server.acceptedConnections >= 1)
        #expect(result.stdout.contains("\"statusCode\" : 404"))
        // The advice is to serve HTTPS; the exception is only the stop-gap.
        #expect(json.exception == ["NSExceptionAllowsInsecureHTTPLoads": "true"])
        #expect(result.stdout.contains("serve it over HTTPS"))
        #expect(result.stdout.contains("only a stop-gap"))
        #expect(result.status == 1)
    }

    @Test func cleartextRefusedIsCannotConnect() async throws {
        let fixture = try Fixture()
        let port = try unusedLoopbackPort()
        let (_, json) = try await fixture.diagnose("http", port: port, rules: "ios26")
        #expect(json.rows == String(repeating: "F", count: NSCurlMatrix.count))
        #expect(json.tests[1].errorCode == -1004, "Allow All Loads connects and is refused")
        #expect(json.tests[0].errorCode == -1022, "the default blocks cleartext before connecting")
        #expect(json.reachability == "unreachable")
    }

    @Test func cleartextSilentIsTimedOut() async throws {
        let fixture = try Fixture()
        let silent = try HostileServer.start(.silent)
        defer { silent.stop() }
        let (_, json) = try await fixture.diagnose("http", port: silent.port, rules: "ios26")
        #expect(json.tests[1].errorCode == -1001)
        #expect(json.tests[1].reasons.first?.contains("no HTTP response") == true, "\(json.tests[1].reasons)")
        #expect(json.tests[0].errorCode == -1022)
    }

    /// No connection at all when the dictionary blocks cleartext: `plist check` with the default dictionary.
    @Test func blockedCleartextNeverConnects() async throws {
        let files = try TemporaryDirectory(prefix: "atsprobe-load")
        defer { files.remove() }
        let directory = files.url
        let file = directory.appendingPathComponent("Info.plist").path
        let plist = try PropertyListSerialization.data(fromPropertyList: ["NSAppTransportSecurity": [String: Any]()], format: .xml, options: 0)
        try plist.write(to: URL(fileURLWithPath: file))
        let server = try CleartextHTTPServer.start()
        defer { server.stop() }
        let result = try await BinaryRunner.run(["plist", "check", file, "--json", "--timeout", "3",
                                                 "--connect-to", "atsprobe.test:\(server.port):127.0.0.1:\(server.port)",
                                                 "http://atsprobe.test:\(server.port)/"], timeout: 60)
        #expect(result.status == 1, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("-1022"))
        #expect(server.acceptedConnections == 0)
    }

    // MARK: - Redirects

    /// URLSession follows 16 redirects; the 17th fails with -1007 (issue 12, item 5).
    @Test(arguments: [(16, true), (17, false)])
    func redirectLimit(redirects: Int, passes: Bool) async throws {
        var table: [String: HTTPBehavior] = ["/\(redirects)": .ok]
        for hop in 0..<redirects { table["/\(hop)"] = .redirect(to: "/\(hop + 1)") }
        let fixture = try Fixture()
        let server = try fixture.serve { $0.http = .perPath(table) }
        defer { server.stop() }
        let (result, json) = try await fixture.diagnose("https", port: server.port, path: "/0", rules: "ios26")
        #expect((json.tests.first?.result == "PASS") == passes, "\(result.stdout)")
        if !passes {
            #expect(json.tests.first?.errorCode == -1007)
            #expect(json.tests.first?.reasons.first?.contains("more than 16 redirects") == true)
        }
    }

    @Test(arguments: ["ios26", "documented"])
    func redirectLoopIsNamed(rules: String) async throws {
        let fixture = try Fixture()
        let server = try fixture.serve { $0.http = .perPath(["/a": .redirect(to: "/b"), "/b": .redirect(to: "/a")]) }
        defer { server.stop() }
        let (_, json) = try await fixture.diagnose("https", port: server.port, path: "/a", rules: rules)
        let first = try #require(json.tests.first)
        #expect(first.errorCode == -1007)
        let url = "https://atsprobe.test:\(server.port)"
        #expect(first.reasons.first == "redirect loop: \(url)/a -> \(url)/b -> \(url)/a", "\(first.reasons)")
    }

    // MARK: - What OpenSSL 3.0 cannot send

    /// A server that refuses every ClientHello, the widest too, could be one that accepts only
    /// ML-KEM hybrids: under iOS 26 (which offers X25519MLKEM768) the reason says atsprobe cannot
    /// tell; under `documented` (no ML-KEM) it does not.
    @Test func refusingEveryHelloMentionsTheGroupAtsprobeCannotSend() async throws {
        let server = try HostileServer.start(.tlsAlert(40))
        defer { server.stop() }
        for (rules, mentions) in [("ios26", true), ("documented", false)] {
            let result = try await BinaryRunner.run(["--ats-diagnostics", "--json", "--timeout", "3", "--rules", rules,
                                                     "https://127.0.0.1:\(server.port)/"], timeout: 60)
            let json = try DiagnosticsJSONView(result.stdout)
            #expect(json.rows == String(repeating: "F", count: NSCurlMatrix.count))
            let reason = json.tests.first?.reasons.first ?? ""
            #expect(reason.contains("X25519MLKEM768") == mentions, "\(rules): \(reason)")
            if mentions { #expect(reason.contains("atsprobe cannot judge it")) }
        }
    }

    // MARK: - Local networking

    /// A non-forward-secret server reached as localhost: by Apple's code (the default) a local name
    /// is not subject to ATS, so the Default row passes; by the documentation it fails (issue 12, item 6).
    @Test func localhostIsNotSubjectToATSByApplesCode() async throws {
        let pki = try TestPKI()
        let root = try pki.writeRootPEM()
        let server = try TestTLSServer.start(TLSServerConfiguration(identity: try pki.issue(CertificateSpec(key: .rsa(bits: 2048))),
                                                                    minVersion: .tls12, maxVersion: .tls12, cipherList: "AES128-GCM-SHA256"))
        defer { server.stop() }
        for (rules, defaultRow) in [("ios26", "PASS"), ("documented", "FAIL")] {
            let result = try await BinaryRunner.run(["--ats-diagnostics", "--json", "--timeout", "3", "--rules", rules,
                                                     "--ca-file", root, "https://localhost:\(server.port)/"], timeout: 60)
            let json = try DiagnosticsJSONView(result.stdout)
            #expect(json.tests.first?.result == defaultRow, "\(rules)")
        }
    }
}

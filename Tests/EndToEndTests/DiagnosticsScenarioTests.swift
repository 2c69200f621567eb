import ATSPolicy
import ATSTestServers
import Foundation
import Testing
import TLSFacts

/// `atsprobe --ats-diagnostics --json` against each loopback scenario: the results in nscurl's
/// order, the suggested exception, the exit code and the handshake budget.
@Suite struct DiagnosticsScenarioTests {
    /// P/F for nscurl's tests, in nscurl's order (`rows(where:)`: which roles pass).
    struct Expectation: Sendable, CustomTestStringConvertible {
        var scenario: Scenario
        var rows: String
        /// "none", "impossible", or the exception's keys and values.
        var suggestion: [String: String]?
        var exitCode: Int32
        var testDescription: String { scenario.rawValue }
    }

    static let allPass = rows { _ in true }
    static let allFail = rows { _ in false }
    /// Every row but those whose entry sets TLS 1.3 as the minimum (a TLS 1.2 server).
    static let tls12Rows = rows { $0.minimum != .tls13 }

    /// The rows as the JSON view reads them: "P" for each test whose role `passes`, in nscurl's order.
    static func rows(where passes: (DiagnosticRole) -> Bool) -> String {
        String(NSCurlMatrix.roles.map { passes($0) ? "P" : "F" })
    }
    static let impossible: [String: String]? = nil

    static let expectations: [Expectation] = [
        .init(scenario: .modernRSA2048, rows: allPass, suggestion: [:], exitCode: 0),
        .init(scenario: .ecdsaP256, rows: allPass, suggestion: [:], exitCode: 0),
        .init(scenario: .ecdsaP384, rows: allPass, suggestion: [:], exitCode: 0),
        .init(scenario: .rsa4096, rows: allPass, suggestion: [:], exitCode: 0),
        .init(scenario: .tls12Only, rows: tls12Rows, suggestion: [:], exitCode: 0),
        .init(scenario: .tls13Only, rows: allPass, suggestion: [:], exitCode: 0),
        .init(scenario: .tls11Only, rows: rows { $0.allowsAll || $0.minimum <= .tls11 }, suggestion: ["NSExceptionMinimumTLSVersion": "TLSv1.1"], exitCode: 1),
        .init(scenario: .tls10Only, rows: rows { $0.allowsAll || $0.minimum == .tls10 }, suggestion: ["NSExceptionMinimumTLSVersion": "TLSv1.0"], exitCode: 1),
        .init(scenario: .staticRSAOnly, rows: rows { $0.allowsAll || ($0.pfsOff && $0.minimum != .tls13) }, suggestion: ["NSExceptionRequiresForwardSecrecy": "false"], exitCode: 1),
        .init(scenario: .dheOnly, rows: allFail, suggestion: impossible, exitCode: 1),
        // Documented list: ECDHE_RSA_AES_256_CBC_SHA and CHACHA20 are not ATS suites, but the
        // platform offers them, so only "PFS off + insecure HTTP" unrestricts the cipher list.
        .init(scenario: .ecdheRSAAES256SHAOnly, rows: rows { $0.allowsAll || ($0.pfsOff && $0.insecureHTTP && $0.minimum != .tls13) },
              suggestion: ["NSExceptionRequiresForwardSecrecy": "false", "NSExceptionAllowsInsecureHTTPLoads": "true"], exitCode: 1),
        .init(scenario: .ecdheRSAChaCha20Only, rows: rows { $0.allowsAll || ($0.pfsOff && $0.insecureHTTP && $0.minimum != .tls13) },
              suggestion: ["NSExceptionRequiresForwardSecrecy": "false", "NSExceptionAllowsInsecureHTTPLoads": "true"], exitCode: 1),
        .init(scenario: .rsa1024Leaf, rows: allFail, suggestion: impossible, exitCode: 1),
        .init(scenario: .sha1Leaf, rows: allFail, suggestion: impossible, exitCode: 1),
        .init(scenario: .expired, rows: allFail, suggestion: impossible, exitCode: 1),
        .init(scenario: .wrongHost, rows: allFail, suggestion: impossible, exitCode: 1),
        .init(scenario: .selfSigned, rows: allFail, suggestion: impossible, exitCode: 1),
        .init(scenario: .unknownRoot, rows: allFail, suggestion: impossible, exitCode: 1),
        .init(scenario: .redirectSameHost, rows: allPass, suggestion: [:], exitCode: 0),
        // Only the dictionaries that allow insecure HTTP for the host (or all loads) follow an http:// hop.
        .init(scenario: .redirectToHTTP, rows: rows { $0.allowsAll || $0.insecureHTTP }, suggestion: ["NSExceptionAllowsInsecureHTTPLoads": "true"], exitCode: 1),
    ]

    /// The table above is Apple's documentation (`--rules documented`), reached as localhost.
    @Test(arguments: expectations)
    func scenario(_ expected: Expectation) async throws {
        let fixture = try ScenarioServer(expected.scenario)
        defer { fixture.stop() }
        var arguments = ["--ats-diagnostics", "--json", "--timeout", "5", "--rules", "documented", fixture.url]
        if expected.scenario.trustsTestRoot { arguments += ["--ca-file", fixture.rootPath] }
        let result = try await BinaryRunner.run(arguments, timeout: 60)
        #expect(!result.timedOut)
        #expect(result.status == expected.exitCode, "stderr: \(result.stderr)")
        let json = try DiagnosticsJSONView(result.stdout)
        #expect(json.rows == expected.rows)
        #expect(json.titles == DiagnosticsJSONView.nscurlTitles)
        #expect(json.handshakes <= 12)
        #expect(json.handshakes >= 10)
        switch expected.suggestion {
        case nil:
            #expect(json.suggestionKind == "impossible")
            #expect(!json.suggestionReason.isEmpty)
        case let keys? where keys.isEmpty:
            #expect(json.suggestionKind == "none")
        case let keys?:
            #expect(json.suggestionKind == "exception")
            #expect(json.suggestionDomain == "localhost")
            #expect(json.exception == keys)
        }
        // Every FAIL carries a reason traced to what was observed.
        for test in json.tests where test.result == "FAIL" {
            #expect(!test.reasons.isEmpty, "\(test.title) has no reason")
        }
    }

    /// The default rule set (iOS 26, a current device), reached under a qualified name so ATS
    /// applies: cell by cell where it differs from the documented table.
    static let defaultExpectations: [(Scenario, String)] = [
        (.modernRSA2048, allPass),
        (.tls12Only, tls12Rows),
        (.tls13Only, allPass),
        // Allow All Loads no longer speaks TLS 1.1/1.0, but the TLSv1.1/TLSv1.0 entries still set
        // the minimum (SecProtocolConfiguration.m), so those rows pass.
        (.tls11Only, rows { $0.minimum <= .tls11 }),
        (.tls10Only, rows { $0.minimum == .tls10 }),
        (.staticRSAOnly, rows { $0.allowsAll || ($0.pfsOff && $0.minimum != .tls13) }),
        (.dheOnly, allFail),
        // Apple's code since 15.4 holds these two suites in the ATS group.
        (.ecdheRSAAES256SHAOnly, tls12Rows),
        (.ecdheRSAChaCha20Only, tls12Rows),
        (.redirectSameHost, allPass),
        // The http:// hop goes to localhost: a local name, not subject to ATS by Apple's code.
        (.redirectToHTTP, allPass),
    ]

    @Test(arguments: defaultExpectations)
    func scenarioUnderDefaultRules(_ scenario: Scenario, rows: String) async throws {
        let fixture = try ScenarioServer(scenario)
        defer { fixture.stop() }
        let result = try await BinaryRunner.run(["--ats-diagnostics", "--json", "--timeout", "5", "--ca-file", fixture.rootPath]
                                                + fixture.qualifiedArguments, timeout: 60)
        #expect(!result.timedOut)
        let json = try DiagnosticsJSONView(result.stdout)
        #expect(json.ruleSet == "ios26")
        #expect(json.rows == rows, "\(scenario)")
        #expect(result.status == (rows.first == "P" ? 0 : 1), "stderr: \(result.stderr)")
        for test in json.tests where test.result == "FAIL" {
            #expect(!test.reasons.isEmpty, "\(test.title) has no reason")
        }
    }

    /// Servers only Apple's ClientHello cannot reach: the rows under the default (iOS 26) and under
    /// `documented`, and the one-line reason that names what the server needed.
    static let offerExpectations: [(Scenario, String, String, String)] = [
        (.x448Only, allFail, allFail, "the server's key exchange uses x448, a group Apple's client does not offer"),
        (.ffdheOnlyTLS13, allFail, allFail, "the server's key exchange uses ffdhe"),
        (.ecdsaP521TLS13, allFail, allFail, "the leaf is ECDSA P-521: on TLS 1.3 it needs ecdsa_secp521r1_sha512"),
        (.ed25519Leaf, allFail, allFail, "the leaf key is Ed25519"),
        (.rsaPSSLeaf, allFail, allFail, "the leaf key is an RSA-PSS key"),
        // Releases up to 15.x still offer ecdsa_sha1; iOS 26 does not.
        (.ecdsaSHA1KeyExchange, allFail, tls12Rows, "the server signs its key exchange with ecdsa_sha1"),
    ]

    @Test(arguments: offerExpectations)
    func serverOutsideApplesOffer(_ scenario: Scenario, defaultRows: String, documentedRows: String, reason: String) async throws {
        let fixture = try ScenarioServer(scenario)
        defer { fixture.stop() }
        for (rules, rows) in [("ios26", defaultRows), ("documented", documentedRows)] {
            let result = try await BinaryRunner.run(["--ats-diagnostics", "--json", "--timeout", "5", "--rules", rules,
                                                     "--ca-file", fixture.rootPath] + fixture.qualifiedArguments, timeout: 60)
            #expect(!result.timedOut)
            let json = try DiagnosticsJSONView(result.stdout)
            #expect(json.ruleSet == rules)
            #expect(json.rows == rows, "\(scenario) under \(rules)")
            if rows == Self.allFail {
                #expect(json.reachability == "answered")
                #expect(json.tests.first?.reasons.first?.contains(reason) == true,
                        "\(scenario) under \(rules): \(json.tests.first?.reasons ?? [])")
                #expect(json.suggestionKind == "impossible")
            }
        }
    }

    @Test func ruleSetIOS15_4AcceptsECDHERSAAES256SHA() async throws {
        let fixture = try ScenarioServer(.ecdheRSAAES256SHAOnly)
        defer { fixture.stop() }
        let result = try await BinaryRunner.run(["--ats-diagnostics", "--json", "--rules", "ios15.4", "--ca-file", fixture.rootPath, fixture.url], timeout: 60)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let json = try DiagnosticsJSONView(result.stdout)
        #expect(json.rows == Self.tls12Rows)
        #expect(json.suggestionKind == "none")
    }

    @Test func unreachableTargetsExit2() async throws {
        let closed = try unusedLoopbackPort()
        let plain = try HostileServer.start(.plainHTTP)
        defer { plain.stop() }
        let silent = try HostileServer.start(.silent)
        defer { silent.stop() }
        for port in [closed, plain.port, silent.port] {
            let result = try await BinaryRunner.run(["--ats-diagnostics", "--json", "--timeout", "1", "https://127.0.0.1:\(port)/"], timeout: 30)
            #expect(result.status == 2, "port \(port): \(result.stderr)")
            let json = try DiagnosticsJSONView(result.stdout)
            #expect(json.rows == Self.allFail)
            #expect(json.reachability == "unreachable")
            #expect(json.suggestionKind == "impossible")
            // All handshakes run at once: a silent server costs about one 1 s timeout, not ten.
            // Measured by the binary's own clock; the wall clock depends on the machine's load.
            #expect(json.wallMilliseconds < 5_000)
        }
    }
}

/// The fields of the diagnostics JSON the tests read.
struct DiagnosticsJSONView {
    struct Test { var title: String; var result: String; var reasons: [String]; var errorCode: Int? }
    var tests: [Test]
    var handshakes: Int
    var wallMilliseconds: Double
    var reachability: String
    var ruleSet: String
    var suggestionKind: String
    var suggestionDomain: String?
    var suggestionReason: String
    var exception: [String: String]

    /// nscurl's titles (ATSPolicyTests' NSCurlMatrixTests holds them in words).
    static let nscurlTitles = NSCurlMatrix.titles

    var rows: String { tests.map { $0.result == "PASS" ? "P" : "F" }.joined() }
    var titles: [String] { tests.map(\.title) }

    init(_ text: String) throws {
        guard let root = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw CocoaError(.coderReadCorrupt)
        }
        #expect(root["schemaVersion"] as? Int == 2)
        tests = (root["tests"] as? [[String: Any]] ?? []).map { test in
            let verdict = test["verdict"] as? [String: Any] ?? [:]
            let reasons = (verdict["reasons"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
            return Test(title: test["title"] as? String ?? "", result: test["result"] as? String ?? "", reasons: reasons,
                        errorCode: (verdict["error"] as? [String: Any])?["code"] as? Int)
        }
        handshakes = root["handshakes"] as? Int ?? -1
        wallMilliseconds = root["wallMilliseconds"] as? Double ?? -1
        reachability = root["reachability"] as? String ?? ""
        ruleSet = root["ruleSet"] as? String ?? ""
        let suggestion = root["suggestion"] as? [String: Any] ?? [:]
        suggestionKind = suggestion["kind"] as? String ?? ""
        suggestionDomain = suggestion["domain"] as? String
        suggestionReason = suggestion["reason"] as? String ?? ""
        var exception: [String: String] = [:]
        for (key, value) in suggestion["exception"] as? [String: Any] ?? [:] {
            if let bool = value as? Bool { exception[key] = bool ? "true" : "false" } else { exception[key] = "\(value)" }
        }
        self.exception = exception
    }
}

/// What a row's dictionary sets, for the expectations above.
extension DiagnosticRole {
    /// The entry's minimum; ATS's own (TLS 1.2) for an entry without one, the default
    /// connection and Allow All Loads.
    var minimum: TLSVersion {
        if case .exception(let keys) = self, let minimum = keys.minimum { return minimum }
        return .tls12
    }
    var pfsOff: Bool { if case .exception(let keys) = self { keys.forwardSecrecyOff } else { false } }
    var insecureHTTP: Bool { if case .exception(let keys) = self { keys.insecureHTTP } else { false } }
    var allowsAll: Bool { self == .allowAllLoads }
}

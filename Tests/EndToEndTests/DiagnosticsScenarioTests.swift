import ATSTestServers
import Foundation
import Testing

/// `atsprobe --ats-diagnostics --json` against each loopback scenario: the 16 results in
/// nscurl's order, the suggested exception, the exit code and the handshake budget.
@Suite struct DiagnosticsScenarioTests {
    /// P/F for nscurl's 16 tests, in order: Default, Allow All, TLSv1.3..1.0, PFS, PFS+HTTP,
    /// TLSv1.3..1.0 with PFS disabled, TLSv1.3..1.0 with PFS disabled and insecure HTTP.
    struct Expectation: Sendable, CustomTestStringConvertible {
        var scenario: Scenario
        var rows: String
        /// "none", "impossible", or the exception's keys and values.
        var suggestion: [String: String]?
        var exitCode: Int32
        var testDescription: String { scenario.rawValue }
    }

    static let allPass = String(repeating: "P", count: 16)
    static let allFail = String(repeating: "F", count: 16)
    static let impossible: [String: String]? = nil

    static let expectations: [Expectation] = [
        .init(scenario: .modernRSA2048, rows: allPass, suggestion: [:], exitCode: 0),
        .init(scenario: .ecdsaP256, rows: allPass, suggestion: [:], exitCode: 0),
        .init(scenario: .ecdsaP384, rows: allPass, suggestion: [:], exitCode: 0),
        .init(scenario: .rsa4096, rows: allPass, suggestion: [:], exitCode: 0),
        .init(scenario: .tls12Only, rows: "PPFPPPPPFPPPFPPP", suggestion: [:], exitCode: 0),
        .init(scenario: .tls13Only, rows: allPass, suggestion: [:], exitCode: 0),
        .init(scenario: .tls11Only, rows: "FPFFPPFFFFPPFFPP", suggestion: ["NSExceptionMinimumTLSVersion": "TLSv1.1"], exitCode: 1),
        .init(scenario: .tls10Only, rows: "FPFFFPFFFFFPFFFP", suggestion: ["NSExceptionMinimumTLSVersion": "TLSv1.0"], exitCode: 1),
        .init(scenario: .staticRSAOnly, rows: "FPFFFFPPFPPPFPPP", suggestion: ["NSExceptionRequiresForwardSecrecy": "false"], exitCode: 1),
        .init(scenario: .dheOnly, rows: allFail, suggestion: impossible, exitCode: 1),
        // Documented list: ECDHE_RSA_AES_256_CBC_SHA and CHACHA20 are not ATS suites, but the
        // platform offers them, so only "PFS off + insecure HTTP" unrestricts the cipher list.
        .init(scenario: .ecdheRSAAES256SHAOnly, rows: "FPFFFFFPFFFFFPPP",
              suggestion: ["NSExceptionRequiresForwardSecrecy": "false", "NSExceptionAllowsInsecureHTTPLoads": "true"], exitCode: 1),
        .init(scenario: .ecdheRSAChaCha20Only, rows: "FPFFFFFPFFFFFPPP",
              suggestion: ["NSExceptionRequiresForwardSecrecy": "false", "NSExceptionAllowsInsecureHTTPLoads": "true"], exitCode: 1),
        .init(scenario: .rsa1024Leaf, rows: allFail, suggestion: impossible, exitCode: 1),
        .init(scenario: .sha1Leaf, rows: allFail, suggestion: impossible, exitCode: 1),
        .init(scenario: .expired, rows: allFail, suggestion: impossible, exitCode: 1),
        .init(scenario: .wrongHost, rows: allFail, suggestion: impossible, exitCode: 1),
        .init(scenario: .selfSigned, rows: allFail, suggestion: impossible, exitCode: 1),
        .init(scenario: .unknownRoot, rows: allFail, suggestion: impossible, exitCode: 1),
        .init(scenario: .redirectSameHost, rows: allPass, suggestion: [:], exitCode: 0),
        // Only the dictionaries that allow insecure HTTP for the host (or all loads) follow an http:// hop.
        .init(scenario: .redirectToHTTP, rows: "FPFFFFFPFFFFPPPP", suggestion: ["NSExceptionAllowsInsecureHTTPLoads": "true"], exitCode: 1),
    ]

    @Test(arguments: expectations)
    func scenario(_ expected: Expectation) async throws {
        let fixture = try ScenarioServer(expected.scenario)
        defer { fixture.stop() }
        var arguments = ["--ats-diagnostics", "--json", "--timeout", "5", fixture.url]
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

    @Test func ruleSetIOS15_4AcceptsECDHERSAAES256SHA() async throws {
        let fixture = try ScenarioServer(.ecdheRSAAES256SHAOnly)
        defer { fixture.stop() }
        let result = try await BinaryRunner.run(["--ats-diagnostics", "--json", "--rules", "ios15.4", "--ca-file", fixture.rootPath, fixture.url], timeout: 60)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let json = try DiagnosticsJSONView(result.stdout)
        #expect(json.rows == "PPFPPPPPFPPPFPPP")
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
    struct Test { var title: String; var result: String; var reasons: [String] }
    var tests: [Test]
    var handshakes: Int
    var wallMilliseconds: Double
    var reachability: String
    var suggestionKind: String
    var suggestionDomain: String?
    var suggestionReason: String
    var exception: [String: String]

    static let nscurlTitles = [
        "ATS Default Connection", "Allow All Loads", "TLSv1.3", "TLSv1.2", "TLSv1.1", "TLSv1.0",
        "Disabling Perfect Forward Secrecy", "Disabling Perfect Forward Secrecy and Allowing Insecure HTTP",
        "TLSv1.3 with PFS disabled", "TLSv1.2 with PFS disabled", "TLSv1.1 with PFS disabled", "TLSv1.0 with PFS disabled",
        "TLSv1.3 with PFS disabled and insecure HTTP allowed", "TLSv1.2 with PFS disabled and insecure HTTP allowed",
        "TLSv1.1 with PFS disabled and insecure HTTP allowed", "TLSv1.0 with PFS disabled and insecure HTTP allowed",
    ]

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
            return Test(title: test["title"] as? String ?? "", result: test["result"] as? String ?? "", reasons: reasons)
        }
        handshakes = root["handshakes"] as? Int ?? -1
        wallMilliseconds = root["wallMilliseconds"] as? Double ?? -1
        reachability = root["reachability"] as? String ?? ""
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

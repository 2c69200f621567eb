import Foundation
import Testing

/// `atsprobe plist check` against loopback servers: the load under the app's own dictionary,
/// what it does not need, and the tightened dictionary.
@Suite struct PlistCheckTests {
    /// NSAllowsArbitraryLoads plus TLSv1.0 for a TLS 1.2 server: both are unnecessary; the
    /// tightened dictionary, checked again, passes with nothing to tighten.
    @Test func tooPermissiveIsTightenedAndTheTightenedDictionaryPasses() async throws {
        let fixture = try PlistFixture()
        let file = try fixture.write(infoPlist([
            "NSAllowsArbitraryLoads": true,
            "NSPinnedDomains": ["other.example": ["NSPinnedLeafIdentities": [["SPKI-SHA256-BASE64": "AAAA"]]]],
            "NSExceptionDomains": ["localhost": ["NSExceptionMinimumTLSVersion": "TLSv1.0", "NSIncludesSubdomains": true]],
        ]), name: "Info.plist")
        let tightened = fixture.path("tightened.plist")
        try await fixture.withServer { server in
            let text = try await BinaryRunner.run(fixture.checkArguments(file, port: server.port), timeout: 60)
            #expect(text.status == 1, "\(text.stdout)\n\(text.stderr)")
            #expect(text.stdout.contains("Governed by  NSExceptionDomains entry \"localhost\" (exact match)"))
            #expect(text.stdout.contains("Load         PASS"))
            #expect(text.stdout.contains("Needs        no exception"))
            #expect(text.stdout.contains("unnecessary  NSAppTransportSecurity.NSExceptionDomains.localhost.NSExceptionMinimumTLSVersion: TLSv1.0 -> absent"))
            #expect(text.stdout.contains("Tightened NSAppTransportSecurity"))
            #expect(text.stdout.contains("unnecessary  NSAppTransportSecurity.NSAllowsArbitraryLoads: true -> absent"))
            #expect(text.stdout.contains("<key>other.example</key>"), "other keys are kept")
            #expect(!text.stdout.contains("<key>NSAllowsArbitraryLoads</key>"))
            #expect(!text.stdout.contains("<string>TLSv1.0</string>"))

            let json = try await BinaryRunner.run(fixture.checkArguments(file, port: server.port, extra: ["--format", "json"]), timeout: 60)
            #expect(json.status == 1)
            let document = try #require(jsonObject(json.stdout), "stdout: \(json.stdout)")
            #expect(document["tight"] as? Bool == false)
            let findings = try #require(document["findings"] as? [[String: Any]])
            let paths = findings.compactMap { $0["keyPath"] as? String }
            #expect(paths.contains("NSAppTransportSecurity.NSExceptionDomains.localhost.NSExceptionMinimumTLSVersion"))
            let targets = try #require(document["targets"] as? [[String: Any]])
            #expect(targets.first?["passes"] as? Bool == true)
            #expect(targets.first?["entry"] as? String == "localhost")
            let tightenedJSON = try #require(document["tightened"] as? [String: Any])
            #expect(tightenedJSON["NSExceptionDomains"] == nil)
            #expect(tightenedJSON["NSAllowsArbitraryLoads"] == nil)
            #expect(tightenedJSON["NSPinnedDomains"] != nil)
            #expect((document["tightenedPlist"] as? String)?.contains("<plist version=\"1.0\">") == true)

            // --format plist writes only the tightened dictionary; check it again.
            let plist = try await BinaryRunner.run(fixture.checkArguments(file, port: server.port, extra: ["--format", "plist", "--output", tightened]), timeout: 60)
            #expect(plist.status == 1)
            let again = try await BinaryRunner.run(fixture.checkArguments(tightened, port: server.port), timeout: 60)
            #expect(again.status == 0, "\(again.stdout)\n\(again.stderr)")
            #expect(again.stdout.contains("Findings: none"))
            #expect(again.stdout.contains("nothing to tighten"))
            #expect(!again.stdout.contains("Tightened NSAppTransportSecurity"))
        }
    }

    /// NSAllowsArbitraryLoads alone, for one TLS 1.1 host: too wide; replaced by the TLSv1.1 entry.
    @Test func arbitraryLoadsForOneTLS11HostIsTooWide() async throws {
        let fixture = try PlistFixture()
        let file = try fixture.write(infoPlist(["NSAllowsArbitraryLoads": true]), name: "Info.plist", binary: true)
        try await fixture.withServer(min: .tls11, max: .tls11) { server in
            let result = try await BinaryRunner.run(fixture.checkArguments(file, port: server.port, extra: ["--json"]), timeout: 60)
            #expect(result.status == 1, "\(result.stdout)\n\(result.stderr)")
            let document = try #require(jsonObject(result.stdout), "stdout: \(result.stdout)")
            #expect(document["format"] as? String == "binary")
            let findings = try #require(document["findings"] as? [[String: Any]])
            #expect(findings.contains { $0["kind"] as? String == "tooWide" && $0["keyPath"] as? String == "NSAppTransportSecurity.NSAllowsArbitraryLoads" })
            let tightened = try #require(document["tightened"] as? [String: Any])
            #expect(tightened["NSAllowsArbitraryLoads"] == nil)
            let entry = (tightened["NSExceptionDomains"] as? [String: Any])?["localhost"] as? [String: Any]
            #expect(entry?["NSExceptionMinimumTLSVersion"] as? String == "TLSv1.1")
        }
    }

    /// A TLS 1.1-only server and no exception: the load fails, with the reason, and the
    /// tightened (here widened) dictionary has the minimal entry.
    @Test func tls11ServerWithoutExceptionFailsAndGetsTheMinimalEntry() async throws {
        let fixture = try PlistFixture()
        let file = try fixture.write(infoPlist(["NSAllowsArbitraryLoadsForMedia": true]), name: "Info.plist", binary: true)
        try await fixture.withServer(min: .tls11, max: .tls11) { server in
            let input = try fixture.write(Data("# hosts the app loads\n\nhttps://localhost:\(server.port)/\n".utf8), name: "targets.txt")
            let result = try await BinaryRunner.run(["plist", "check", file, "--input", input, "--ca-file", fixture.rootPath, "--rules", "documented",
                                               "--connect-to", "localhost:\(server.port):127.0.0.1:\(server.port)"], timeout: 60)
            #expect(result.status == 1, "\(result.stdout)\n\(result.stderr)")
            #expect(result.stdout.contains("Governed by  default ATS (no entry for the host)"))
            #expect(result.stdout.contains("Load         FAIL"))
            #expect(result.stdout.contains("reason"))
            #expect(result.stdout.contains("TLSv1.1"))
            #expect(result.stdout.contains("insufficient  NSAppTransportSecurity.NSExceptionDomains.localhost: absent -> NSExceptionMinimumTLSVersion = TLSv1.1"))
            #expect(result.stdout.contains("<key>NSExceptionMinimumTLSVersion</key>\n\t\t\t\t<string>TLSv1.1</string>"))
            #expect(result.stdout.contains("<key>NSAllowsArbitraryLoadsForMedia</key>"))
        }
    }

    /// `example.test` with NSIncludesSubdomains and a host two labels down: Apple's code applies
    /// the entry, the documentation does not; both readings are loaded and reported.
    @Test func subdomainDepthShowsBothReadings() async throws {
        let fixture = try PlistFixture()
        let host = "a.b.example.test"
        let file = try fixture.write(infoPlist([
            "NSExceptionDomains": ["example.test": ["NSIncludesSubdomains": true, "NSExceptionMinimumTLSVersion": "TLSv1.1"]],
        ]), name: "Info.plist")
        try await fixture.withServer(names: [host], min: .tls11, max: .tls11) { server in
            let text = try await BinaryRunner.run(fixture.checkArguments(file, host: host, port: server.port), timeout: 60)
            #expect(text.status == 1, "\(text.stdout)\n\(text.stderr)")
            #expect(text.stdout.contains("Apple's code (any depth) applies entry \"example.test\""))
            #expect(text.stdout.contains("Apple's documentation (one label) applies no entry"))
            #expect(text.stdout.contains("Load (code)  PASS"))
            #expect(text.stdout.contains("Load (docs)  FAIL"))
            #expect(text.stdout.contains("insufficient  NSAppTransportSecurity.NSExceptionDomains.a.b.example.test: absent -> NSExceptionMinimumTLSVersion = TLSv1.1"))

            let json = try await BinaryRunner.run(fixture.checkArguments(file, host: host, port: server.port, extra: ["--json"]), timeout: 60)
            let document = try #require(jsonObject(json.stdout), "stdout: \(json.stdout)")
            let target = try #require((document["targets"] as? [[String: Any]])?.first)
            let readings = try #require(target["subdomainReadings"] as? [String: Any])
            #expect(readings["anyDepth"] as? String == "example.test")
            #expect(readings["oneLabel"] == nil)
            let loads = try #require(target["loads"] as? [[String: Any]])
            #expect(loads.map { $0["reading"] as? String } == ["anyDepth", "oneLabel"])
            #expect(loads.map { $0["result"] as? String } == ["PASS", "FAIL"])

            // The tightened dictionary gives the host an entry of its own: both readings agree and pass.
            let tightened = fixture.path("tightened.plist")
            _ = try await BinaryRunner.run(fixture.checkArguments(file, host: host, port: server.port, extra: ["--format", "plist", "--output", tightened]), timeout: 60)
            let again = try await BinaryRunner.run(fixture.checkArguments(tightened, host: host, port: server.port), timeout: 60)
            #expect(again.status == 0, "\(again.stdout)\n\(again.stderr)")
            #expect(again.stdout.contains("Governed by  NSExceptionDomains entry \"a.b.example.test\" (exact match)"))
            #expect(!again.stdout.contains("Readings"))
        }
    }

    @Test func badTargetAndMissingTargetsAreExit64() async throws {
        let fixture = try PlistFixture()
        let file = try fixture.write(infoPlist([:]), name: "Info.plist")
        let bad = try await BinaryRunner.run(["plist", "check", file, "localhost:99999"], timeout: 30)
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("bad port '99999'"))
        let none = try await BinaryRunner.run(["plist", "check", file], timeout: 30)
        #expect(none.status == 64)
        #expect(none.stderr.contains("give at least one target"))
    }

    @Test func unreachableHostIsExit2() async throws {
        let fixture = try PlistFixture()
        let file = try fixture.write(infoPlist([:]), name: "Info.plist")
        // Bind a server to learn a free port, then stop it: nothing listens there.
        let port = try await fixture.withServer { $0.port }
        let result = try await BinaryRunner.run(["plist", "check", file, "https://127.0.0.1:\(port)/", "--timeout", "3"], timeout: 60)
        #expect(result.status == 2, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("could not be reached"))
    }
}

import Foundation
import Testing
import TestSupport

/// `atsprobe plist explain`: offline, whole outputs against golden files (text and JSON), and bad
/// input as one line with exit 64. Set ATSPROBE_UPDATE_GOLDEN=1 to rewrite the golden files after
/// a deliberate change, then review the diff. The cells are Apple's (docs/rules.md,
/// "Configuration semantics"): the unit tests they follow are named beside each URL.
@Suite struct PlistExplainTests {
    /// Every class in one dictionary: an exception with subdomains two labels up (the readings
    /// differ), insecure HTTP, Apple's built-in exceptions (testBuiltInExceptions) and one the app
    /// replaces (testExceptionOverridesBuiltInException), NSAllowsLocalNetworking = YES with
    /// direct, declared-direct and routed addresses (testLocalNetworkingKeyOverridesAllowsArbitraryLoads),
    /// a string "YES" that Apple ignores (testInvalidATSDictionary), an empty pin array
    /// (SecPolicy.c parseNSPinnedDomains) and a host with a trailing dot.
    static let plist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0"><dict>
          <key>CFBundleIdentifier</key><string>test.atsprobe.explain</string>
          <key>NSAppTransportSecurity</key><dict>
            <key>NSAllowsArbitraryLoads</key><string>YES</string>
            <key>NSAllowsLocalNetworking</key><true/>
            <key>NSExceptionDomains</key><dict>
              <key>example.com</key><dict>
                <key>NSIncludesSubdomains</key><true/>
                <key>NSExceptionMinimumTLSVersion</key><string>TLSv1.1</string>
                <key>NSExceptionRequiresForwardSecrecy</key><false/>
              </dict>
              <key>insecure.example.net</key><dict>
                <key>NSExceptionAllowsInsecureHTTPLoads</key><integer>1</integer>
              </dict>
              <key>setup.icloud.com</key><dict>
                <key>NSExceptionMinimumTLSVersion</key><string>TLSv1.3</string>
              </dict>
            </dict>
            <key>NSPinnedDomains</key><dict>
              <key>pinned.example.org</key><dict>
                <key>NSPinnedCAIdentities</key><array/>
              </dict>
            </dict>
          </dict>
        </dict></plist>
        """

    static let urls = [
        "https://api.example.com/", "https://a.b.example.com/v1", "http://insecure.example.net/",
        "https://www.apple.com/", "https://ls.apple.com/", "https://setup.icloud.com/",
        "http://192.168.1.20/", "https://203.0.113.7/", "https://[fe80::1]/", "http://printer.local/",
        "https://pinned.example.org/", "https://api.example.com./",
    ]

    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    private func compare(_ output: String, golden name: String) throws {
        let file = Self.directory.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["ATSPROBE_UPDATE_GOLDEN"] == "1" {
            try Data(output.utf8).write(to: file)
        }
        let golden = try String(contentsOf: file, encoding: .utf8)
        #expect(output == golden, "output differs from \(file.path); diff it against a run with ATSPROBE_UPDATE_GOLDEN=1")
    }

    @Test(arguments: [("plist-explain.txt", false), ("plist-explain.json", true)])
    func goldenOutput(name: String, json: Bool) async throws {
        let directory = try TemporaryDirectory(prefix: "atsprobe-explain")
        defer { directory.remove() }
        let file = try directory.write("Info.plist", Self.plist)
        var arguments = ["plist", "explain", file] + Self.urls + ["--direct", "192.168.1.20"]
        if json { arguments.append("--json") }
        let result = try await BinaryRunner.run(arguments, timeout: 30)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.isEmpty)
        try compare(result.stdout.replacingOccurrences(of: file, with: "FILE"), golden: name)
    }

    /// The cells the golden file holds, asserted one by one so a failure names the cell.
    @Test func cellsFollowApplesCode() async throws {
        let directory = try TemporaryDirectory(prefix: "atsprobe-explain")
        defer { directory.remove() }
        let file = try directory.write("Info.plist", Self.plist)
        let result = try await BinaryRunner.run(["plist", "explain", file, "--json", "--direct", "192.168.1.20"] + Self.urls, timeout: 30)
        let json = try #require((try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any])
        #expect(json["schemaVersion"] as? Int == 2)
        let results = try #require(json["results"] as? [[String: Any]])
        func cell(_ url: String) -> [String: Any] { results.first { $0["url"] as? String == url } ?? [:] }
        // Built-in exception (testBuiltInExceptions): www.apple.com via apple.com, no TLS required.
        #expect(cell("https://www.apple.com/")["reason"] as? String == "builtInException")
        #expect(cell("https://ls.apple.com/")["minimumTLSVersion"] as? String == "TLSv1.0")
        // The app's setup.icloud.com replaces the built-in one (testExceptionOverridesBuiltInException).
        #expect(cell("https://setup.icloud.com/")["reason"] as? String == "exception")
        #expect(cell("https://setup.icloud.com/")["tlsRequired"] as? Bool == true)
        // NSExceptionAllowsInsecureHTTPLoads = 1 is YES (NSNumber isEqual:@YES).
        #expect(cell("http://insecure.example.net/")["tlsRequired"] as? Bool == false)
        // NSAllowsLocalNetworking = YES: direct hosts only, never a routed address.
        #expect(cell("http://192.168.1.20/")["reason"] as? String == "localNetworking")
        #expect(cell("https://[fe80::1]/")["direct"] as? Bool == true)
        #expect(cell("https://203.0.113.7/")["tlsRequired"] as? Bool == true)
        #expect(cell("https://203.0.113.7/")["reason"] as? String == "defaults")
        // An empty pin array can never match.
        #expect((cell("https://pinned.example.org/")["pins"] as? [String: Any])?["canMatch"] as? Bool == false)
        // The exception lookup keeps the trailing dot (SecProtocolConfiguration.m looks the host up
        // as written): "api.example.com." is not under "example.com" (docs/rules.md, "Domain keys").
        #expect(cell("https://api.example.com./")["entry"] == nil || cell("https://api.example.com./")["entry"] is NSNull)
        // Two labels below example.com: Apple's code and the documentation differ.
        #expect(cell("https://a.b.example.com/v1")["readingsDiffer"] as? Bool == true)
    }

    @Test func badInputIsOneLineExit64() async throws {
        let directory = try TemporaryDirectory(prefix: "atsprobe-explain")
        defer { directory.remove() }
        let good = try directory.write("Info.plist", Self.plist)
        let notPlist = try directory.write("notes.txt", "this is not a plist\n")
        let cases: [([String], String)] = [
            ([directory.path("missing.plist"), "https://example.com/"], "missing.plist"),
            ([notPlist, "https://example.com/"], "is not a property list"),
            ([good, "https://exa mple.com/"], "invalid target"),
            ([good, "ftp://example.com/"], "invalid target"),
            ([good, "https://example.com/", "--direct", "10.0.0.300"], "--direct '10.0.0.300' is not an IP address"),
            ([good, "https://example.com/", "--rules", "ios12"], "unknown rule set or release 'ios12'"),
            ([good, "https://example.com/", "--rules", "android14"], "unknown rule set or release 'android14'"),
            ([good], "give at least one URL"),
        ]
        for (arguments, mentions) in cases {
            let result = try await BinaryRunner.run(["plist", "explain"] + arguments, timeout: 30)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(arguments)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(mentions), "\(arguments): \(result.stderr)")
        }
    }
}

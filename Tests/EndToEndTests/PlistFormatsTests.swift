import Foundation
import Testing
import TestSupport

/// `plist lint` and `plist check` with `--format xcode` (clang-style lines an Xcode Run Script
/// phase shows inline) and `--format sarif` (SARIF 2.1.0 for code scanning), each finding at
/// the line and column of its key (issue 25). Goldens are compared whole; set
/// ATSPROBE_UPDATE_GOLDEN=1 to rewrite them after a deliberate change, then review the diff.
@Suite struct PlistFormatsTests {
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    /// A hand-written Info.plist, so every position is known: an error (a misspelt key), a
    /// warning (NSAllowsArbitraryLoads), an info (a default value) and a domain key error.
    static let handWritten = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    <dict>
    \t<key>CFBundleIdentifier</key>
    \t<string>test.atsprobe.app</string>
    \t<key>NSAppTransportSecurity</key>
    \t<dict>
    \t\t<key>NSAllowsArbitraryLoads</key>
    \t\t<true/>
    \t\t<key>NSExceptionDomains</key>
    \t\t<dict>
    \t\t\t<key>Example.com</key>
    \t\t\t<dict>
    \t\t\t\t<key>NSExceptionMinimumTLSVerison</key>
    \t\t\t\t<string>TLSv1.1</string>
    \t\t\t\t<key>NSIncludesSubdomains</key>
    \t\t\t\t<false/>
    \t\t\t</dict>
    \t\t</dict>
    \t</dict>
    </dict>
    </plist>

    """

    /// `path:line:col: error|warning|note: message [rule]`, or `path: ...` for a binary plist.
    nonisolated(unsafe) static let xcodeLine = #/^(?<file>[^:]+)(:(?<line>\d+):(?<column>\d+))?: (?<level>error|warning|note): (?<message>.+) \[(?<rule>[A-Za-z0-9./-]+)\]$/#

    static func compareGolden(_ text: String, _ name: String) throws {
        let file = golden.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["ATSPROBE_UPDATE_GOLDEN"] == "1" {
            try Data(text.utf8).write(to: file)
        }
        let expected = try String(contentsOf: file, encoding: .utf8)
        #expect(text == expected, "output differs from \(file.path); diff it against a run with ATSPROBE_UPDATE_GOLDEN=1")
    }

    /// The scratch directory and the tool version are the only things that change between runs.
    static func masked(_ text: String, directory: URL) async throws -> String {
        let version = try await BinaryRunner.run(["--version"], timeout: 30).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return text.replacingOccurrences(of: directory.path, with: "/GOLDEN")
            .replacingOccurrences(of: "\"version\" : \"\(version)\"", with: "\"version\" : \"TOOL-VERSION\"")
    }

    @Test func lintXcodeLinesPointAtEachKey() async throws {
        let fixture = try PlistFixture()
        let file = try fixture.write(Data(Self.handWritten.utf8), name: "Info.plist")
        let result = try await BinaryRunner.run(["plist", "lint", file, "--format", "xcode"], timeout: 30)
        #expect(result.status == 1, "an error fails by default: \(result.stderr)")
        #expect(result.stderr.isEmpty)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count >= 4)
        for line in lines {
            let match = try #require(line.wholeMatch(of: Self.xcodeLine), "not clang's form: \(line)")
            #expect(String(match.file) == file)
            #expect(match.line != nil && match.column != nil, "an XML plist has lines: \(line)")
        }
        // The misspelt key is on line 15, column 5 (four tabs, then <key>).
        #expect(lines.contains { $0.hasPrefix("\(file):15:5: error: ") && $0.hasSuffix("[unknown-key]") }, "\(result.stdout)")
        #expect(lines.contains { $0.hasPrefix("\(file):9:3: warning: ") && $0.hasSuffix("[review-justification]") }, "\(result.stdout)")
        #expect(lines.contains { $0.hasPrefix("\(file):13:4: error: ") && $0.hasSuffix("[domain-uppercase]") }, "\(result.stdout)")
        try Self.compareGolden(try await Self.masked(result.stdout, directory: fixture.directory), "lint-xcode.txt")
    }

    @Test func lintXcodeForABinaryPlistLocatesAtTheFile() async throws {
        let fixture = try PlistFixture()
        let file = try fixture.write(infoPlist(["NSAllowsArbitraryLoads": "YES"]), name: "binary.plist", binary: true)
        let result = try await BinaryRunner.run(["plist", "lint", file, "--format", "xcode"], timeout: 30)
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(!lines.isEmpty)
        for line in lines {
            let match = try #require(line.wholeMatch(of: Self.xcodeLine), "not clang's form: \(line)")
            #expect(match.line == nil, "a binary plist has no lines: \(line)")
        }
        #expect(lines.contains { $0.hasPrefix("\(file): error: NSAppTransportSecurity.NSAllowsArbitraryLoads: ") && $0.hasSuffix("[wrong-type]") })
    }

    @Test func lintSARIFValidatesAndLocatesEachResult() async throws {
        let fixture = try PlistFixture()
        let file = try fixture.write(Data(Self.handWritten.utf8), name: "Info.plist")
        let result = try await BinaryRunner.run(["plist", "lint", file, "--format", "sarif"], timeout: 30)
        #expect(result.status == 1)
        try await Self.validateSARIF(result.stdout, fixture: fixture)
        let log = try #require(jsonObject(result.stdout))
        let run = try #require((log["runs"] as? [[String: Any]])?.first)
        let rules = try #require(((run["tool"] as? [String: Any])?["driver"] as? [String: Any])?["rules"] as? [[String: Any]])
        let ids = rules.compactMap { $0["id"] as? String }
        #expect(ids.count >= 25 && Set(ids).count == ids.count && ids.contains("unknown-key") && ids.contains("pin-digest-length"), "one rule per lint rule: \(ids)")
        let results = try #require(run["results"] as? [[String: Any]])
        let unknown = try #require(results.first { $0["ruleId"] as? String == "unknown-key" })
        #expect(unknown["level"] as? String == "error")
        #expect(rules[unknown["ruleIndex"] as? Int ?? -1]["id"] as? String == "unknown-key")
        let location = try #require((unknown["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any])
        #expect((location["artifactLocation"] as? [String: Any])?["uri"] as? String == "file://\(file)")
        #expect(location["region"] as? [String: Int] == ["startLine": 15, "startColumn": 5])
        let note = try #require(results.first { $0["ruleId"] as? String == "redundant-default" })
        #expect(note["level"] as? String == "note")
        try Self.compareGolden(try await Self.masked(result.stdout, directory: fixture.directory), "lint-sarif.json")
    }

    /// A TLS 1.0 server the app's entry does not cover: the failing load is located at the
    /// entry that governs it, with the target URL beside it; the tightening findings at their keys.
    @Test func checkXcodeAndSARIFLocateLoadsAndFindings() async throws {
        let fixture = try PlistFixture()
        let plist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0">
        <dict>
          <key>NSAppTransportSecurity</key>
          <dict>
            <key>NSExceptionDomains</key>
            <dict>
              <key>localhost</key>
              <dict>
                <key>NSExceptionAllowsInsecureHTTPLoads</key>
                <true/>
              </dict>
            </dict>
          </dict>
        </dict>
        </plist>
        """
        let file = try fixture.write(Data(plist.utf8), name: "Info.plist")
        try await fixture.withServer(min: .tls10, max: .tls10) { server in
            let xcode = try await BinaryRunner.run(fixture.checkArguments(file, port: server.port, extra: ["--format", "xcode"]), timeout: 120)
            #expect(xcode.status == 1, "\(xcode.stderr)")
            let lines = xcode.stdout.split(separator: "\n").map(String.init)
            for line in lines {
                #expect(line.wholeMatch(of: Self.xcodeLine) != nil, "not clang's form: \(line)")
            }
            // The load fails under the localhost entry (line 8, column 7), which needs a lower minimum.
            #expect(lines.contains { $0.hasPrefix("\(file):8:7: error: https://localhost:\(server.port)/ fails") && $0.hasSuffix("[load/handshakeFailed.noSharedProtocol]") },
                    "\(xcode.stdout)")
            #expect(lines.contains { $0.hasPrefix("\(file):8:7: error: ") && $0.hasSuffix("[insufficient]") }, "\(xcode.stdout)")
            #expect(lines.contains { $0.hasPrefix("\(file):10:9: warning: ") && $0.hasSuffix("[unnecessary]") }, "\(xcode.stdout)")

            let sarif = try await BinaryRunner.run(fixture.checkArguments(file, port: server.port, extra: ["--format", "sarif"]), timeout: 120)
            #expect(sarif.status == 1)
            try await Self.validateSARIF(sarif.stdout, fixture: fixture)
            let log = try #require(jsonObject(sarif.stdout))
            let results = try #require((log["runs"] as? [[String: Any]])?.first?["results"] as? [[String: Any]])
            let load = try #require(results.first { $0["ruleId"] as? String == "load/handshakeFailed.noSharedProtocol" })
            let related = try #require((load["relatedLocations"] as? [[String: Any]])?.first)
            let url = ((related["physicalLocation"] as? [String: Any])?["artifactLocation"] as? [String: Any])?["uri"] as? String
            #expect(url == "https://localhost:\(server.port)/")
            #expect(results.count == lines.count, "the same results in both formats")
        }
    }

    /// The SARIF log against a JSON Schema written from the SARIF 2.1.0 specification's required
    /// fields and location shape (Golden/sarif-2.1.0-subset.schema.json), with Python's
    /// jsonschema: skipped with a message where it is not installed (.ci/run installs it).
    static func validateSARIF(_ text: String, fixture: PlistFixture) async throws {
        // The python3 on PATH (a pyenv one may hold jsonschema where /usr/bin/python3 does not).
        let python = "/usr/bin/env"
        let probe = try await ChildProcess.run(python, ["python3", "-c", "import jsonschema"], timeout: 120)
        #expect(!probe.timedOut)
        guard probe.status == 0 else {
            print("PlistFormatsTests: SARIF schema check skipped, no python3 jsonschema (apt-get install python3-jsonschema)")
            return
        }
        let log = try fixture.write(Data(text.utf8), name: "log.sarif")
        let schema = golden.appendingPathComponent("sarif-2.1.0-subset.schema.json").path
        let script = """
        import json, sys, jsonschema
        log = json.load(open(sys.argv[1])); schema = json.load(open(sys.argv[2]))
        jsonschema.Draft7Validator.check_schema(schema)
        errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(log), key=lambda e: list(e.path))
        for e in errors: print(list(e.path), e.message)
        sys.exit(1 if errors else 0)
        """
        let check = try await ChildProcess.run(python, ["python3", "-c", script, log, schema], timeout: 120)
        #expect(check.status == 0, "SARIF schema: \(check.stdout)\(check.stderr)")
    }
}

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

    /// The SARIF log against the full OASIS SARIF 2.1.0 schema (read from shared/data/sarif) and
    /// GitHub code scanning's expectations, with Debian's Python and its jsonschema (.ci/run installs it; missing under CI fails).
    static func validateSARIF(_ text: String, fixture: PlistFixture) async throws {
        guard let python = try RequiredTool.pythonModule("jsonschema", install: "apt-get install python3-jsonschema",
                                                         for: "PlistFormatsTests: SARIF schema check") else { return }
        let log = try fixture.write(Data(text.utf8), name: "log.sarif")
        let schema = try #require(fullSARIFSchema, "the full SARIF 2.1.0 schema (shared/data/sarif/sarif-schema-2.1.0.json) beside the project")
        // The full OASIS schema (draft-04), then what GitHub code scanning expects of an upload
        // ("SARIF support for code scanning"): every result's rule in the driver's rules, a
        // partialFingerprints entry, a location with an artifact uri and, for a file, a start
        // line; every rule with fullDescription, help (text and markdown), helpUri https or absent, and a
        // security-severity that is a number from 0.0 to 10.0, tagged "security".
        let script = """
        import json, sys, jsonschema
        log = json.load(open(sys.argv[1])); schema = json.load(open(sys.argv[2]))
        jsonschema.Draft4Validator.check_schema(schema)
        errors = [f"{list(e.path)} {e.message}" for e in jsonschema.Draft4Validator(schema).iter_errors(log)]
        for run in log["runs"]:
            rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
            for r in rules.values():
                for field in ["fullDescription", "help", "properties"]:
                    if field not in r: errors.append(f"rule {r['id']}: no {field}")
                # helpUri: an https address the project configures, or absent; never file:// (issue 42).
                if "helpUri" in r and not r["helpUri"].startswith("https://"): errors.append(f"rule {r['id']}: helpUri {r['helpUri']}")
                if "markdown" not in r.get("help", {}): errors.append(f"rule {r['id']}: help has no markdown")
                severity = float(r.get("properties", {}).get("security-severity", "-1"))
                if not 0.0 <= severity <= 10.0: errors.append(f"rule {r['id']}: security-severity {severity}")
                if "security" not in r.get("properties", {}).get("tags", []): errors.append(f"rule {r['id']}: not tagged security")
            for i, result in enumerate(run["results"]):
                if result["ruleId"] not in rules: errors.append(f"result {i}: rule {result['ruleId']} not in rules")
                if not result.get("partialFingerprints"): errors.append(f"result {i}: no partialFingerprints")
                physical = result["locations"][0]["physicalLocation"]
                uri = physical["artifactLocation"]["uri"]
                if not uri: errors.append(f"result {i}: no uri")
                if "region" in physical and physical["region"].get("startLine", 0) < 1: errors.append(f"result {i}: no start line")
        for e in errors: print(e)
        sys.exit(1 if errors else 0)
        """
        let check = try await ChildProcess.run(python, ["-c", script, log, schema], timeout: 120)
        #expect(check.status == 0, "SARIF schema and GitHub's expectations: \(check.stdout)\(check.stderr)")
    }

    /// The full OASIS SARIF 2.1.0 schema, read where the workplace keeps it (not copied into the
    /// project): `shared/data/sarif/` in a directory above the package.
    static var fullSARIFSchema: String? {
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        for _ in 0..<8 {
            directory = directory.deletingLastPathComponent()
            let candidate = directory.appendingPathComponent("shared/data/sarif/sarif-schema-2.1.0.json").path
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
        }
        return nil
    }

}

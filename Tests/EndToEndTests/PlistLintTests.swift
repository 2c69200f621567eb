import Foundation
import Testing

/// `atsprobe plist lint`: exit codes by --fail-on, the JSON shape, bad files.
@Suite struct PlistLintTests {
    @Test func failOnDecidesTheExitCode() async throws {
        let fixture = try PlistFixture()
        // One warning (NSAllowsArbitraryLoads needs review justification), no errors.
        let warning = try fixture.write(infoPlist(["NSAllowsArbitraryLoads": true]), name: "warning.plist")
        // One error: a misspelled key.
        let error = try fixture.write(infoPlist(["NSAllowArbitraryLoads": true]), name: "error.plist", binary: true)
        // Info only: no NSAppTransportSecurity at all.
        let info = try fixture.write(["CFBundleIdentifier": "x"], name: "info.plist")

        let cases: [(String, [String], Int32)] = [
            // Warnings alone pass by default (as SwiftLint and ESLint); --fail-on warning is strict.
            (warning, [], 0), (warning, ["--fail-on", "warning"], 1), (warning, ["--fail-on", "error"], 0), (warning, ["--fail-on", "never"], 0),
            (error, [], 1), (error, ["--fail-on", "error"], 1), (error, ["--fail-on", "never"], 0),
            (info, [], 0), (info, ["--fail-on", "info"], 1),
        ]
        for (file, options, expected) in cases {
            let result = try await BinaryRunner.run(["plist", "lint", file] + options, timeout: 30)
            #expect(result.status == expected, "\(file) \(options): \(result.stdout) \(result.stderr)")
        }

        let text = try await BinaryRunner.run(["plist", "lint", error], timeout: 30)
        #expect(text.stdout.contains("error"))
        #expect(text.stdout.contains("NSAppTransportSecurity.NSAllowArbitraryLoads"))
        #expect(text.stdout.contains("did you mean NSAllowsArbitraryLoads"))
        #expect(text.stdout.contains("1 error, 0 warnings"))
    }

    @Test func jsonHasSchemaFileFormatAndFindings() async throws {
        let fixture = try PlistFixture()
        let file = try fixture.write(infoPlist(["NSAllowsArbitraryLoads": "YES"]), name: "binary.plist", binary: true)
        let result = try await BinaryRunner.run(["plist", "lint", "--format", "json", file], timeout: 30)
        #expect(result.status == 1)
        let json = try #require(jsonObject(result.stdout), "stdout: \(result.stdout)")
        #expect(Set(json.keys) == ["schemaVersion", "run", "file", "format", "findings"])
        #expect((json["run"] as? [String: Any])?["tool"] as? String == "atsprobe")
        #expect(json["schemaVersion"] as? Int == 2)
        #expect(json["file"] as? String == file)
        #expect(json["format"] as? String == "binary")
        let findings = try #require(json["findings"] as? [[String: Any]])
        let wrongType = try #require(findings.first { $0["rule"] as? String == "wrong-type" })
        #expect(Set(wrongType.keys) == ["severity", "rule", "keyPath", "message", "fix"])
        #expect(wrongType["severity"] as? String == "error")
        #expect(wrongType["keyPath"] as? String == "NSAppTransportSecurity.NSAllowsArbitraryLoads")
    }

    @Test func notAPropertyListIsOneLineExit64() async throws {
        let fixture = try PlistFixture()
        let file = try fixture.write(Data("this is not a plist\n".utf8), name: "notes.txt")
        for command in ["lint", "check"] {
            var arguments = ["plist", command, file]
            if command == "check" { arguments.append("localhost:9") }
            let result = try await BinaryRunner.run(arguments, timeout: 30)
            #expect(result.status == 64)
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.split(separator: "\n").count == 1, "stderr: \(result.stderr)")
            #expect(result.stderr.contains("'\(file)' is not a property list"))
        }
        let missing = try await BinaryRunner.run(["plist", "lint", fixture.path("absent.plist")], timeout: 30)
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("no such file"))
    }
}

import Foundation
import Testing

/// The command-line frictions of issue 25: every argument error is one line on stderr with
/// exit 64, naming what to type instead where atsprobe can tell. None of these connects.
@Suite struct CLIFrictionTests {
    @Test(arguments: [
        // argument-parser's own errors, without its usage block.
        (["plist", "lint", "Info.plist", "--format", "yaml"],
         "The value 'yaml' is invalid for '--format <format>'. Please provide one of 'text', 'json', 'xcode' or 'sarif'. (see 'atsprobe plist lint --help')"),
        (["diagnose", "example.com", "--color"], "Missing value for '--color <color>' (see 'atsprobe diagnose --help')"),
        // A negative number is the option's value, so the command names it.
        (["diagnose", "--timeout", "-1", "example.com"], "--timeout must be between 0 and 600 seconds, got -1.0"),
        // Before the subcommand.
        (["--color", "diagnose", "example.com"], "--color needs a value: auto, always or never (e.g. --color never)"),
        (["-v", "diagnose", "example.com"], "option '-v' goes after the command: 'atsprobe diagnose -v ...'"),
        // A word that is not a command.
        (["version"], "unknown command 'version' for 'atsprobe'; did you mean 'atsprobe --version'?"),
        (["example.com:8443"], "'example.com:8443' is not a command; to test a server: 'atsprobe diagnose example.com:8443' (or probe, pins, audit)"),
        // A mistyped scheme.
        (["diagnose", "http//example.com"], "'http//example.com' is not a URL; did you mean 'http://example.com'?"),
        (["probe", "https:/example.com"], "'https:/example.com' is not a URL; did you mean 'https://example.com'?"),
        (["diagnose", "htps://example.com/a"], "'htps://example.com/a' is not a URL; did you mean 'https://example.com/a'?"),
    ])
    func argumentErrorsAreOneLineWithExit64(arguments: [String], message: String) async throws {
        let result = try await BinaryRunner.run(arguments, timeout: 30)
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        #expect(result.stderr == "atsprobe: \(message)\n", "\(arguments)")
        #expect(result.stdout.isEmpty)
    }

    /// `report` writes JSON (the merged records, or --diff's comparison): its help offers --json;
    /// `plist explain`'s formats are listed as the command takes them.
    @Test func reportHelpListsOnlyWhatItAccepts() async throws {
        let help = try await BinaryRunner.run(["report", "--help"], timeout: 30)
        #expect(help.status == 0)
        #expect(help.stdout.contains("--json"), "\(help.stdout)")
        #expect(help.stdout.contains("--junit-cases") && help.stdout.contains("--fail-on"))
        #expect(help.stdout.contains("--format"))
        let diagnose = try await BinaryRunner.run(["diagnose", "--help"], timeout: 30)
        #expect(diagnose.stdout.contains("--json"), "commands that write JSON keep it")
    }

    /// `diagnose http://HOST:PORT/` where PORT speaks TLS: says so and names the https URL,
    /// never NSExceptionAllowsInsecureHTTPLoads for a host that passes over https.
    @Test func httpToATLSPortSaysSoAndSuggestsHTTPS() async throws {
        let fixture = try ExceptionFixture()
        try await fixture.withServer { port in
            let target = "http://127.0.0.1:\(port)/"
            let json = try await BinaryRunner.run(["diagnose", "--ca-file", fixture.rootPath, "--timeout", "5", "--json", target], timeout: 120)
            #expect(json.status == 1, "\(json.stderr)")
            let document = try #require(jsonObject(json.stdout), "\(json.stdout)")
            let suggestion = try #require(document["suggestion"] as? [String: Any])
            #expect(suggestion["kind"] as? String == "impossible", "\(suggestion)")
            let reason = suggestion["reason"] as? String ?? ""
            #expect(reason.contains("port \(port) speaks TLS, not HTTP"), "\(reason)")
            #expect(reason.contains("load https://127.0.0.1:\(port)/ instead (it passes default ATS)"), "\(reason)")
            #expect(suggestion["exception"] == nil, "\(suggestion)")
            let plist = try await BinaryRunner.run(["diagnose", "--ca-file", fixture.rootPath, "--timeout", "5", "--format", "plist", target], timeout: 120)
            #expect(!plist.stdout.contains("NSExceptionAllowsInsecureHTTPLoads"), "\(plist.stdout)")
        }
    }
}

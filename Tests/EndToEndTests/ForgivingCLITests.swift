import ATSTestServers
import Foundation
import Testing
import TestSupport
import TLSFacts

/// A CLI that forgives (issue 14, item 4): -v and --quiet, did-you-mean, --color anywhere,
/// help that offers only what works, and dictionaries that pass atsprobe's own linter.
@Suite struct ForgivingCLITests {
    @Test(arguments: [
        (["diagnos", "example.com"], "unknown command 'diagnos' for 'atsprobe'; did you mean 'diagnose'? (commands: probe, diagnose, audit, report, pins, plist, cert, app)"),
        (["--ats-diagnostic", "example.com"], "unknown option '--ats-diagnostic' for 'atsprobe'; did you mean '--ats-diagnostics'?"),
        (["audit", "--concurency", "4", "x"], "unknown option '--concurency' for 'atsprobe audit'; did you mean '--concurrency'?"),
        (["plist", "lnt", "f.plist"], "unknown command 'lnt' for 'atsprobe plist'; did you mean 'lint'? (commands: lint, check, explain)"),
        (["help", "nosuch"], "unknown command 'nosuch' for 'atsprobe' (commands: probe, diagnose, audit, report, pins, plist, cert, app)"),
        (["help", "plist", "nosuch"], "unknown command 'nosuch' for 'atsprobe plist' (commands: lint, check, explain)"),
    ])
    func typosGetTheNearestNameAndExit64(arguments: [String], message: String) async throws {
        let result = try await BinaryRunner.run(arguments, timeout: 30)
        #expect(result.status == 64)
        #expect(result.stderr == "atsprobe: \(message)\n")
        #expect(result.stdout.isEmpty)
    }

    @Test func helpOffersOnlyTheFormatsACommandWrites() async throws {
        let probe = try await BinaryRunner.run(["probe", "--help"], timeout: 30)
        #expect(probe.status == 0)
        #expect(probe.stdout.contains("(values: text, json;"), "\(probe.stdout)")
        #expect(!probe.stdout.contains("plist"))
        let lint = try await BinaryRunner.run(["help", "plist", "lint"], timeout: 30)
        #expect(lint.status == 0)
        #expect(lint.stdout.contains("(values: text, json, xcode, sarif;"), "\(lint.stdout)")
        let audit = try await BinaryRunner.run(["audit", "--help"], timeout: 30)
        let flat = audit.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
        #expect(flat.contains("(values: text, json, plist, html, csv, markdown, junit, sarif, openmetrics, prometheus; default: text)"), "\(audit.stdout)")
        let refused = try await BinaryRunner.run(["probe", "--format", "plist", "example.com"], timeout: 30)
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("Please provide one of 'text' and 'json'"))
        // Commands that colour nothing take no --color after the subcommand...
        let pins = try await BinaryRunner.run(["pins", "--help"], timeout: 30)
        #expect(!pins.stdout.contains("--color"))
    }

    @Test func colorWorksBeforeOrAfterTheSubcommandAndNoColorIsHonoured() async throws {
        let fixture = try ExceptionFixture()
        try await fixture.withServer { port in
            let target = "https://127.0.0.1:\(port)/"
            let green = "\u{1B}[32mPASS\u{1B}[0m"
            let before = try await BinaryRunner.run(["--color", "always", "diagnose", "--ca-file", fixture.rootPath, target], timeout: 60)
            #expect(before.status == 0, "stderr: \(before.stderr)")
            #expect(before.stdout.contains("Result : \(green)"))
            let after = try await BinaryRunner.run(["--ats-diagnostics", "-v", "--ca-file", fixture.rootPath, "--color=always", target], timeout: 60)
            #expect(after.stdout.contains("Result : \(green)"))
            #expect(after.stdout.contains("ATS Dictionary:"), "-v is --verbose")
            // BinaryRunner sets NO_COLOR=1; auto then colours nothing (and stdout is a pipe anyway).
            let auto = try await BinaryRunner.run(["diagnose", "--color", "auto", "--ca-file", fixture.rootPath, target], timeout: 60)
            #expect(!auto.stdout.contains("\u{1B}["))
            // ...and before the subcommand, a command with nothing to colour takes it as a no-op.
            let lint = try await BinaryRunner.run(["--color", "always", "plist", "lint", "/nonexistent.plist"], timeout: 30)
            #expect(lint.status == 64)
            #expect(lint.stderr.contains("/nonexistent.plist"))
            let audit = try await BinaryRunner.run(["audit", "--color", "always", "--ca-file", fixture.rootPath, target], timeout: 60)
            #expect(audit.stdout.hasPrefix("\u{1B}[32mPASS"), "\(audit.stdout.debugDescription)")
        }
    }

    @Test func theTightenedAndMergedDictionariesPassPlistLint() async throws {
        let fixture = try ExceptionFixture()
        let files = try TemporaryDirectory(prefix: "atsprobe-lint")
        defer { files.remove() }
        let directory = files.url
        try await fixture.withServer(configure: { $0.minVersion = .tls10; $0.maxVersion = .tls10 }) { port in
            // What the issue saw kept: a misspelt key, "1.0", a wildcard domain key.
            let app = directory.appendingPathComponent("Info.plist").path
            try """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict><key>NSAppTransportSecurity</key><dict>
            <key>NSAllowsArbitraryLoads</key><true/>
            <key>NSExceptionDomains</key><dict>
              <key>localhost</key><dict>
                <key>NSIncludeSubdomains</key><true/>
                <key>NSExceptionMinimumTLSVersion</key><string>1.0</string>
              </dict>
              <key>*.example.com</key><dict><key>NSExceptionAllowsInsecureHTTPLoads</key><true/></dict>
            </dict></dict></dict></plist>
            """.write(toFile: app, atomically: true, encoding: .utf8)
            let connect = ["--connect-to", ":\(port):127.0.0.1:\(port)", "--ca-file", fixture.rootPath]
            let tightened = directory.appendingPathComponent("tightened.plist").path
            let check = try await BinaryRunner.run(["plist", "check", app, "https://localhost:\(port)/", "--format", "plist",
                                                    "--output", tightened] + connect, timeout: 120)
            #expect(check.status == 1, "stderr: \(check.stderr)")
            // The tightened and the merged dictionaries pass the default lint (warnings such as
            // review-justification remain, and are listed, but do not fail it).
            let lintTightened = try await BinaryRunner.run(["plist", "lint", tightened], timeout: 30)
            #expect(lintTightened.status == 0, "\(lintTightened.stdout)")
            #expect(!lintTightened.stdout.contains("NSIncludeSubdomains"))
            #expect(!lintTightened.stdout.contains("*.example.com"))
            let text = try await BinaryRunner.run(["plist", "check", app, "https://localhost:\(port)/"] + connect, timeout: 120)
            #expect(text.stdout.contains("NSIncludeSubdomains: present -> absent: unknown key 'NSIncludeSubdomains'"), "\(text.stdout)")

            let clean = directory.appendingPathComponent("Clean.plist").path
            try """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict><key>CFBundleName</key><string>App</string></dict></plist>
            """.write(toFile: clean, atomically: true, encoding: .utf8)
            let merged = directory.appendingPathComponent("merged.plist").path
            let merge = try await BinaryRunner.run(["diagnose", "https://localhost:\(port)/", "--merge", clean, "--output", merged] + connect,
                                                   timeout: 120)
            #expect(merge.status == 1, "stderr: \(merge.stderr)")
            let lintMerged = try await BinaryRunner.run(["plist", "lint", merged], timeout: 30)
            #expect(lintMerged.status == 0, "\(lintMerged.stdout)")
            #expect(lintMerged.stdout.contains("NSExceptionMinimumTLSVersion = TLSv1.0"))
        }
    }
}

import ATSAppFixtures
import ATSTestServers
import Foundation
import PropertyList
import Testing
import TestSupport

/// `atsprobe app` end to end: an .ipa built here, its hosts served on loopback (--connect-to
/// maps the planted names to 127.0.0.1), each loaded under its own bundle's dictionary.
@Suite struct AppCommandTests {
    static let mainHosts = ["https://api.planted.test/v1/items"]
    static let extensionHosts = ["https://share.planted.test/upload"]

    /// NSAllowsArbitraryLoads and a TLSv1.0 entry the TLS 1.2 host does not need in the app, an
    /// entry for a host the test excludes (so no checked host falls under it), no dictionary in
    /// the extension.
    static func app(mainATS: [String: PropertyListValue]? = nil, extensionATS: [String: PropertyListValue]? = nil) -> AppFixture {
        AppFixture.demo(mainATS: mainATS ?? ["NSAllowsArbitraryLoads": true,
                                             "NSExceptionDomains": ["api.planted.test": ["NSExceptionMinimumTLSVersion": "TLSv1.0"],
                                                                    "ct.planted.test": ["NSRequiresCertificateTransparency": true]]],
                        extensionATS: extensionATS, mainHosts: mainHosts, extensionHosts: extensionHosts)
    }

    func writeIPA(_ app: AppFixture, _ fixture: PlistFixture, name: String = "Demo.ipa") throws -> String {
        try fixture.write(Data(app.ipa()), name: name)
    }

    @Test func offlineFindsThePlantedHostsAndNoneOfTheNoise() async throws {
        let fixture = try PlistFixture()
        let app = AppFixture.demo(mainATS: ["NSAllowsArbitraryLoads": true], extensionATS: nil,
                                  mainHosts: Self.mainHosts + ["cdn.planted.com"], extensionHosts: Self.extensionHosts,
                                  frameworkHosts: ["http://metrics.planted.test:8080/x"], resourceJSON: "{\"u\": \"https://config.planted.test/\"}")
        let ipa = try writeIPA(app, fixture)
        let text = try await BinaryRunner.run(["app", ipa, "--offline"], timeout: 60)
        #expect(text.status == 1, "lint warns about NSAllowsArbitraryLoads\n\(text.stdout)\n\(text.stderr)")
        #expect(text.stdout.contains("What the app talks to (5 hosts to check"))
        #expect(text.stdout.contains("PlugIns/Share.appex\n    Kind        extension, test.atsprobe.demo.share"))
        #expect(text.stdout.contains("declares no NSAppTransportSecurity: its loads get the ATS defaults"))
        #expect(text.stdout.contains("Offline: nothing loaded."))

        let json = try await BinaryRunner.run(["app", ipa, "--offline", "--json"], timeout: 60)
        let document = try #require(jsonObject(json.stdout), "\(json.stdout)\n\(json.stderr)")
        #expect(document["offline"] as? Bool == true)
        let hosts = try #require(document["hosts"] as? [[String: Any]])
        let targets = hosts.map { "\($0["bundle"] as? String ?? "?") \($0["target"] as? String ?? "?")" }
        #expect(targets == ["https://api.planted.test/", " https://cdn.planted.com/", " https://config.planted.test/",
                            " http://metrics.planted.test:8080/", "PlugIns/Share.appex https://share.planted.test/"].map {
            $0.hasPrefix("https://api") ? " " + $0 : $0 })
        let filtered = try #require(document["filtered"] as? [[String: Any]])
        let noise = Dictionary(filtered.map { ($0["host"] as? String ?? "", $0["filtered"] as? String ?? "") }, uniquingKeysWith: { a, _ in a })
        #expect(noise["www.apple.com"] == "apple")
        #expect(noise["www.w3.org"] == "schema")
        #expect(noise["www.example.com"] == "example")
        #expect(noise["www.apache.org"] == "documentation")
        #expect(!json.stdout.contains("signing.planted.test"))

        let list = try fixture.write(Data("# only these\napi.planted.test\nhttps://extra.planted.test:8443/\n".utf8), name: "hosts.txt")
        let only = try await BinaryRunner.run(["app", ipa, "--offline", "--json", "--hosts-only", list], timeout: 60)
        let onlyDocument = try #require(jsonObject(only.stdout), "\(only.stdout)\n\(only.stderr)")
        #expect((onlyDocument["hosts"] as? [[String: Any]])?.map { $0["target"] as? String } == ["https://api.planted.test/", "https://extra.planted.test:8443/"])
        #expect((onlyDocument["filtered"] as? [[String: Any]])?.contains { $0["host"] as? String == "share.planted.test" && $0["filtered"] as? String == "notListed" } == true)

        let markdown = try await BinaryRunner.run(["app", ipa, "--offline", "--format", "markdown"], timeout: 60)
        #expect(markdown.stdout.contains("## What the app talks to"))
        #expect(markdown.stdout.contains("| `https://api.planted.test/` | `Demo.app` | `Demo` | not loaded |"))
    }

    @Test func eachHostLoadsUnderItsBundlesDictionaryAndTheTightenedPlistPasses() async throws {
        let fixture = try PlistFixture()
        let ipa = try writeIPA(Self.app(), fixture)
        try await fixture.withServer(names: ["api.planted.test"]) { api in
            try await fixture.withServer(names: ["share.planted.test"], min: .tls11, max: .tls11) { share in
                let connect = ["--ca-file", fixture.rootPath, "--timeout", "5",
                               "--connect-to", "api.planted.test:443:127.0.0.1:\(api.port)",
                               "--connect-to", "share.planted.test:443:127.0.0.1:\(share.port)"]
                let base = ["app", ipa, "--exclude", "ct.planted.test"] + connect
                let text = try await BinaryRunner.run(base, timeout: 120)
                #expect(text.status == 1, "\(text.stdout)\n\(text.stderr)")
                let out = text.stdout
                #expect(out.contains("Loads under Demo.app's dictionary\n\n  https://api.planted.test/\n    Governed by  NSExceptionDomains entry \"api.planted.test\" (exact match)"))
                #expect(out.contains("Loads under PlugIns/Share.appex's dictionary\n\n  https://share.planted.test/\n    Governed by  default ATS"))
                #expect(out.contains("Will fail (1)\n  https://share.planted.test/ under PlugIns/Share.appex's dictionary"))
                #expect(out.contains("    fix: the minimal NSExceptionDomains entry for share.planted.test: NSExceptionMinimumTLSVersion = TLSv1.1\n"), "\(out)")
                #expect(out.contains("Demo.app: unnecessary NSAppTransportSecurity.NSExceptionDomains.api.planted.test.NSExceptionMinimumTLSVersion: TLSv1.0 -> absent"), "\(out)")
                #expect(out.contains("Demo.app: unnecessary NSAppTransportSecurity.NSAllowsArbitraryLoads: true -> absent"), "\(out)")
                #expect(out.contains("NSExceptionDomains entry \"ct.planted.test\": no host found in the app falls under it"))
                #expect(out.contains("Tightened NSAppTransportSecurity for PlugIns/Share.appex (--format plist --bundle PlugIns/Share.appex"))
                #expect(out.contains("Server fixes"))
                // One count per section, each item once, and no key a host needs under "What no host needs" (issue 31).
                let unneeded = section(out, "What no host needs\n")
                #expect(!unneeded.contains("share.planted.test"), "the extension's failing host needs its entry\n\(unneeded)")
                #expect(unneeded.components(separatedBy: "ct.planted.test").count == 2, "the unmatched entry is listed once\n\(unneeded)")
                #expect(section(out, "Will fail (1)\n").contains("PlugIns/Share.appex needs NSAppTransportSecurity.NSExceptionDomains.share.planted.test"), "\(out)")
                #expect(out.contains("Summary: 1 of 2 loads pass under the app's dictionaries; 1 will fail; 3 items no host needs\n"), "\(out)")

                let json = try await BinaryRunner.run(base + ["--json"], timeout: 120)
                let document = try #require(jsonObject(json.stdout), "\(json.stdout)\n\(json.stderr)")
                let checks = try #require(document["checks"] as? [[String: Any]])
                #expect(checks.map { $0["bundle"] as? String } == ["", "PlugIns/Share.appex"])
                #expect(checks.map { ($0["check"] as? [String: Any])?["passes"] as? Bool } == [true, false])
                #expect(checks[1]["remedy"] as? String == "the minimal NSExceptionDomains entry for share.planted.test: NSExceptionMinimumTLSVersion = TLSv1.1")
                let bundles = try #require(document["bundles"] as? [[String: Any]])
                let share = try #require(bundles.first { $0["path"] as? String == "PlugIns/Share.appex" })
                let entry = ((share["tightened"] as? [String: Any])?["NSExceptionDomains"] as? [String: Any])?["share.planted.test"] as? [String: Any]
                #expect(entry?["NSExceptionMinimumTLSVersion"] as? String == "TLSv1.1")
                #expect(bundles.first { $0["path"] as? String == "Frameworks/Net.framework" }?["tight"] == nil)

                // The report formats carry the same sections.
                let markdown = try await BinaryRunner.run(base + ["--format", "markdown"], timeout: 120)
                #expect(markdown.status == 1)
                #expect(markdown.stdout.contains("| `https://share.planted.test/` | `PlugIns/Share.appex` | `PlugIns/Share.appex/Share` | FAIL |"), "\(markdown.stdout)")
                #expect(markdown.stdout.contains("## Tightened dictionary: `PlugIns/Share.appex`\n\n```xml\n"))
                #expect(markdown.stdout.contains("## Server fixes"))
                #expect(markdown.stdout.contains("## What no host needs\n\n- `Demo.app`: **unnecessary** `NSAppTransportSecurity."), "\(markdown.stdout)")
                #expect(markdown.stdout.contains("- `Demo.app`: **unnecessary** `NSAppTransportSecurity.NSAllowsArbitraryLoads`: `true` -> `absent`: "))
                #expect(markdown.stdout.contains("`: no host found in the app falls under it\n"))
                #expect(!section(markdown.stdout, "## What no host needs\n\n").contains("share.planted.test"), "\(markdown.stdout)")
                let html = try await BinaryRunner.run(base + ["--format", "html"], timeout: 120)
                #expect(html.status == 1)
                #expect(html.stdout.hasPrefix("<!DOCTYPE html>"))
                #expect(html.stdout.contains("<td>https://share.planted.test/</td><td>PlugIns/Share.appex</td><td>PlugIns/Share.appex/Share</td><td><span class=\"fail\">FAIL</span></td>"), "\(html.stdout)")
                #expect(html.stdout.contains("&lt;key&gt;NSExceptionMinimumTLSVersion&lt;/key&gt;"))
                #expect(html.stdout.contains("<h2>What no host needs</h2>\n<ul>\n<li>Demo.app: <b>unnecessary</b> <code>NSAppTransportSecurity."), "\(html.stdout)")
                #expect(html.stdout.contains("<li>Demo.app: <b>unnecessary</b> <code>NSAppTransportSecurity.NSAllowsArbitraryLoads</code>: true &#x2192; absent: "))
                #expect(html.stdout.contains("</code>: no host found in the app falls under it</li>\n"))
                #expect(html.stdout.hasSuffix("</html>\n"))

                // The tightened dictionaries, printed alone, pass plist lint and plist check on the same hosts.
                let mainPlist = fixture.path("main.plist"), sharePlist = fixture.path("share.plist")
                let printed = try await BinaryRunner.run(base + ["--format", "plist", "--output", mainPlist], timeout: 120)
                #expect(printed.status == 1)
                _ = try await BinaryRunner.run(base + ["--format", "plist", "--bundle", "test.atsprobe.demo.share", "--output", sharePlist], timeout: 120)
                let lint = try await BinaryRunner.run(["plist", "lint", mainPlist], timeout: 30)
                #expect(lint.status == 0, "\(lint.stdout)")
                let lintShare = try await BinaryRunner.run(["plist", "lint", sharePlist, "--fail-on", "error"], timeout: 30)
                #expect(lintShare.status == 0, "\(lintShare.stdout)")
                let checkMain = try await BinaryRunner.run(["plist", "check", mainPlist, "https://api.planted.test/"] + connect, timeout: 60)
                #expect(checkMain.status == 0, "\(checkMain.stdout)\n\(checkMain.stderr)")
                let checkShare = try await BinaryRunner.run(["plist", "check", sharePlist, "https://share.planted.test/"] + connect, timeout: 60)
                #expect(checkShare.status == 0, "\(checkShare.stdout)\n\(checkShare.stderr)")

                // The app rebuilt with both tightened dictionaries: every load passes, nothing to tighten.
                func ats(_ path: String) throws -> [String: PropertyListValue] {
                    try #require(try PropertyListFile.read(path: path).root["NSAppTransportSecurity"]?.dictionaryValue)
                }
                let fixed = try writeIPA(Self.app(mainATS: try ats(mainPlist), extensionATS: try ats(sharePlist)), fixture, name: "Fixed.ipa")
                let again = try await BinaryRunner.run(["app", fixed, "--exclude", "ct.planted.test"] + connect, timeout: 120)
                #expect(again.status == 0, "\(again.stdout)\n\(again.stderr)")
                #expect(again.stdout.contains("Will fail: none"))
                // Nothing to tighten; the entry for the excluded host is still listed, and counted, once.
                #expect(again.stdout.contains("Summary: 2 of 2 loads pass under the app's dictionaries; 0 will fail; 1 item no host needs\n"), "\(again.stdout)")
            }
        }
    }

    /// --source-plist: an .ipa's results placed in the Info.plist the repository holds, at its
    /// keys' lines there, instead of `Payload/Demo.app/Info.plist` inside the archive (issue 31).
    @Test func sarifSourcePlistPlacesResultsInTheRepositoryFile() async throws {
        let fixture = try PlistFixture()
        let ipa = try writeIPA(Self.app(), fixture)
        let source = """
        \(xmlPlistHead)
        <dict>
        \t<key>CFBundleIdentifier</key>
        \t<string>$(PRODUCT_BUNDLE_IDENTIFIER)</string>
        \t<key>NSAppTransportSecurity</key>
        \t<dict>
        \t\t<key>NSExceptionDomains</key>
        \t\t<dict/>
        \t\t<key>NSAllowsArbitraryLoads</key>
        \t\t<true/>
        \t</dict>
        </dict>
        </plist>

        """
        try FileManager.default.createDirectory(atPath: fixture.path("Demo"), withIntermediateDirectories: true)
        let repositoryPlist = try fixture.write(Data(source.utf8), name: "Demo/Info.plist")
        let result = try await BinaryRunner.run(["app", ipa, "--offline", "--format", "sarif", "--source-plist", repositoryPlist], timeout: 60)
        #expect(result.status == 1, "lint warns: \(result.stderr)")
        try await PlistFormatsTests.validateSARIF(result.stdout, fixture: fixture)
        let run = try #require((jsonObject(result.stdout)?["runs"] as? [[String: Any]])?.first)
        let results = try #require(run["results"] as? [[String: Any]])
        let places = results.map { result -> (uri: String?, line: Int?) in
            let physical = (result["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any]
            return ((physical?["artifactLocation"] as? [String: Any])?["uri"] as? String, (physical?["region"] as? [String: Int])?["startLine"])
        }
        let arbitrary = try #require(results.firstIndex { ($0["message"] as? [String: Any]).map { "\($0)" }?.contains("NSAllowsArbitraryLoads") == true }, "\(results)")
        #expect(places[arbitrary].uri == "file://" + repositoryPlist && places[arbitrary].line == 11, "\(places)")
        #expect(!places.contains { $0.uri?.hasPrefix("Payload/Demo.app/Info.plist") == true }, "\(places)")
        // The other bundles stay inside the archive, as before.
        let artifacts = (run["artifacts"] as? [[String: Any]])?.compactMap { ($0["location"] as? [String: Any])?["uri"] as? String } ?? []
        #expect(!artifacts.contains("Payload/Demo.app/Info.plist") && artifacts.contains("Payload/Demo.app/PlugIns/Share.appex/Info.plist"), "\(artifacts)")

        let other = try await BinaryRunner.run(["app", ipa, "--offline", "--format", "sarif", "--source-plist", "Nope.appex=" + repositoryPlist], timeout: 60)
        #expect(other.status == 64 && other.stderr.contains("--source-plist 'Nope.appex' is not a bundle of the app"), "\(other.stderr)")
        let text = try await BinaryRunner.run(["app", ipa, "--offline", "--source-plist", repositoryPlist], timeout: 60)
        #expect(text.status == 64 && text.stderr.contains("--source-plist goes with --format sarif"), "\(text.stderr)")
    }

    /// The text from a heading to the next blank line or heading.
    func section(_ text: String, _ heading: String) -> String {
        guard let start = text.range(of: heading) else { return "" }
        let rest = text[start.upperBound...]
        let end = rest.range(of: "\n\n")?.lowerBound ?? rest.range(of: "\n#")?.lowerBound ?? rest.endIndex
        return String(rest[..<end])
    }

    @Test func hostileArchivesAreOneLineExit64() async throws {
        let fixture = try PlistFixture()
        var bomb = ZipWriter()
        bomb.add("Payload/Demo.app/Demo", [UInt8](repeating: 0, count: 8 * 1024 * 1024))
        var traversal = ZipWriter()
        traversal.add("Payload/Demo.app/../../../../tmp/atsprobe-evil", Array("x".utf8))
        var many = ZipWriter()
        for i in 0..<10_000 { many.add("Payload/Demo.app/\(i)", [], method: .stored) }
        var link = Self.app()
        link.symlinks["Frameworks/escape"] = "../../../../../etc/passwd"
        let cases: [(String, [UInt8], String)] = [
            ("bomb.ipa", bomb.finished(), "(a zip bomb?)"), ("traversal.ipa", traversal.finished(), "(path traversal); refused"),
            ("many.ipa", many.finished(), "10000 entries, more than the limit of 8000"), ("link.ipa", link.ipa(), "points out of the bundle; refused"),
        ]
        for (name, bytes, expected) in cases {
            let path = try fixture.write(Data(bytes), name: name)
            let result = try await BinaryRunner.run(["app", path, "--offline"], timeout: 30)
            #expect(result.status == 64, "\(name): \(result.stderr)")
            #expect(result.stderr.hasPrefix("atsprobe: '\(path)': "), "\(name): \(result.stderr)")
            #expect(result.stderr.contains(expected), "\(name): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(name): \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        #expect(!FileManager.default.fileExists(atPath: "/tmp/atsprobe-evil"))
    }

    /// Names from the app (file names, identifiers) carry markup, table pipes and bidi controls:
    /// none reaches any format raw.
    @Test func hostileNamesAreEscapedInEveryFormat() async throws {
        let fixture = try PlistFixture()
        var app = AppFixture.demo(mainATS: [:], extensionATS: nil, mainHosts: ["https://api.planted.test/"], extensionHosts: [])
        app.files["Info.plist"] = AppFixture.infoPlist(identifier: "evil\u{202E}<script>|x", executable: "Demo", ats: [:])
        app.files["<img src=x>|[a](b)\u{1B}[31m.json"] = Array("{\"u\": \"https://evil.planted.test/\"}".utf8)
        let ipa = try writeIPA(app, fixture)
        for format in ["text", "markdown", "html", "json"] {
            let result = try await BinaryRunner.run(["app", ipa, "--offline", "--format", format], timeout: 30)
            #expect(result.status == 0, "\(format): \(result.stderr)")
            #expect(result.stdout.contains("evil.planted.test"), "\(format)")
            #expect(!result.stdout.contains("\u{202E}"), "\(format)")
            #expect(!result.stdout.contains("\u{1B}"), "\(format)")
            if format == "html" {
                #expect(!result.stdout.contains("<script>"))
                #expect(!result.stdout.contains("<img"))
                #expect(result.stdout.contains("&lt;img src=x&gt;|[a](b)\\x1B[31m.json"))
            }
            if format == "markdown" {
                // In code spans (issue 42): nothing outside them holds the hostile name's HTML.
                #expect(result.stdout.contains("<img src=x>"), "\(result.stdout)")
                let live = result.stdout.split(separator: "\n").filter { ReportRecordInputTests.outsideCodeSpans(String($0)).contains("<img") }
                #expect(live.isEmpty, "\(live)")
            }
        }
    }

    /// Issue 25: a host named only in the dictionary (here an NSPinnedDomains key), unreachable
    /// on the 443 the check guesses for it, has no say in the tightening: the global opt-out goes when the hosts the
    /// code shows pass without it.
    @Test func anUnreachableDictionaryGuessKeepsNoGlobalOptOut() async throws {
        let fixture = try PlistFixture()
        // A pinned domain has no exception entry: NSAllowsArbitraryLoads governs its loads, so an
        // undecided load of it would keep the opt-out.
        let pin: PropertyListValue = ["NSPinnedLeafIdentities": [["SPKI-SHA256-BASE64": "n5EWH0NDPkmm3m22gNefYBWfLkrJFyYhoShGQoFYRAs="]]]
        let app = AppFixture.demo(mainATS: ["NSAllowsArbitraryLoads": true, "NSPinnedDomains": ["gone.planted.test": pin]],
                                  extensionATS: nil, mainHosts: Self.mainHosts, extensionHosts: [])
        let ipa = try writeIPA(app, fixture)
        let port = try unusedLoopbackPort()
        try await fixture.withServer(names: ["api.planted.test"]) { api in
            let tightened = fixture.path("tightened.plist")
            let result = try await BinaryRunner.run(["app", ipa, "--ca-file", fixture.rootPath, "--timeout", "3",
                                                     "--connect-to", "api.planted.test:443:127.0.0.1:\(api.port)",
                                                     "--connect-to", "gone.planted.test:443:127.0.0.1:\(port)",
                                                     "--format", "plist", "--output", tightened], timeout: 120)
            #expect(!result.timedOut)
            let written = (try? String(contentsOfFile: tightened, encoding: .utf8)) ?? ""
            #expect(written.contains("<key>NSPinnedDomains</key>"), "other keys are kept: \(written)\n\(result.stderr)")
            #expect(!written.contains("NSAllowsArbitraryLoads"), "the unreachable guess kept the opt-out:\n\(written)\n\(result.stderr)")
            let text = try await BinaryRunner.run(["app", ipa, "--ca-file", fixture.rootPath, "--timeout", "3",
                                                   "--connect-to", "api.planted.test:443:127.0.0.1:\(api.port)",
                                                   "--connect-to", "gone.planted.test:443:127.0.0.1:\(port)"], timeout: 120)
            #expect(text.stdout.contains("gone.planted.test: named only in the dictionary and not reachable on port 443; left out of the tightening"),
                    "\(text.stdout)")
            // Said before the run (stderr), in the report's host list, and in JSON (issue 31).
            let said = "1 host comes only from Info.plist dictionary keys, not from the binary, and is loaded on port 443 as a guess (--exclude HOST leaves one out): gone.planted.test"
            #expect(text.stderr.contains("atsprobe: " + said), "\(text.stderr)")
            let lines = text.stdout.split(separator: "\n")
            #expect(lines.contains { $0.hasPrefix("  https://gone.planted.test/ ") && $0.hasSuffix("under Demo.app, found in Info.plist (a dictionary key only, not in the binary)") },
                    "\(text.stdout)")
            #expect(lines.contains { $0.hasPrefix("  https://api.planted.test/ ") && $0.hasSuffix("found in Demo") }, "\(text.stdout)")
            #expect(text.stdout.contains(said + "\n"))
            let json = try await BinaryRunner.run(["app", ipa, "--offline", "--json"], timeout: 60)
            let hosts = try #require(jsonObject(json.stdout)?["hosts"] as? [[String: Any]], "\(json.stdout)")
            #expect(hosts.filter { $0["fromDictionaryKey"] as? Bool == true }.map { $0["host"] as? String } == ["gone.planted.test"])
        }
    }

    /// A host nothing answers for: exit 2, and its loads are reported as not reached (the
    /// http:// one too: the app allows it, so it is attempted).
    @Test func unreachableHostIsExit2() async throws {
        let fixture = try PlistFixture()
        let app = AppFixture.demo(mainATS: ["NSExceptionDomains": ["gone.planted.test": ["NSExceptionAllowsInsecureHTTPLoads": true]]], extensionATS: nil, mainHosts: ["https://gone.planted.test/", "http://gone.planted.test/x"], extensionHosts: [])
        let ipa = try writeIPA(app, fixture)
        let port = try unusedLoopbackPort()
        let result = try await BinaryRunner.run(["app", ipa, "--timeout", "3", "--connect-to", "gone.planted.test:443:127.0.0.1:\(port)",
                                                 "--connect-to", "gone.planted.test:80:127.0.0.1:\(port)"], timeout: 60)
        #expect(result.status == 2, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("Will fail (2)\n  http://gone.planted.test/ under Demo.app's dictionary"), "\(result.stdout)")
        #expect(result.stdout.contains("fix: unknown: the host could not be reached over http:// (nothing was measured)"), "\(result.stdout)")
        #expect(result.stdout.contains("  https://gone.planted.test/ under Demo.app's dictionary"))
        #expect(result.stdout.contains("fix: unknown: the host could not be reached ("), "\(result.stdout)")
    }

    @Test func badOptionsAreExit64() async throws {
        let fixture = try PlistFixture()
        let ipa = try writeIPA(Self.app(), fixture)
        let cases: [([String], String)] = [
            (["--offline", "--format", "plist"], "needs the live check"),
            (["--offline", "--include", "not a host"], "--include 'not a host' is not a host name pattern"),
            (["--offline", "--exclude", "*."], "--exclude '*.' is not a host name pattern"),
            (["--offline", "--max-entries", "0"], "--max-entries must be between 1 and 1000000"),
            (["--offline", "--hosts-only", fixture.path("missing.txt")], "--hosts-only"),
            (["--bundle", "Nope.appex", "--format", "plist"], "is not a bundle of the app"),
            (["--bundle", "Frameworks/Net.framework", "--format", "plist"], "is a framework"),
        ]
        for (extra, expected) in cases {
            let result = try await BinaryRunner.run(["app", ipa] + extra, timeout: 30)
            #expect(result.status == 64, "\(extra): \(result.stderr)")
            #expect(result.stderr.contains(expected), "\(extra): \(result.stderr)")
        }
        let missing = try await BinaryRunner.run(["app", fixture.path("nothing.ipa"), "--offline"], timeout: 30)
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("cannot read: No such file or directory"), "\(missing.stderr)")
    }
}

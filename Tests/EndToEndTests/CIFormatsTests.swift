import ATSPolicy
import ATSAppFixtures
import ATSTestServers
import Foundation
import Testing
import TestSupport
import TLSFacts

/// The CI formats of `audit` and `diagnose` (issue 25): JUnit XML read as Jenkins reads it,
/// SARIF at each target's URL, both equal to `atsprobe report` of the run's records; and
/// baselines: `audit --baseline OLD.jsonl --fail-on new` against a server that got worse.
@Suite struct CIFormatsTests {
    /// One JUnit testcase as Jenkins' junit plugin reads it (SuiteResult.parse, CaseResult).
    struct JenkinsCase: Hashable {
        var suite: String, package: String, className: String, name: String, status: String, message: String
    }

    /// Validates `xml` against Golden/junit-jenkins.xsd with lxml, then reads it as Jenkins'
    /// parser does: suites (nested ones too) by name, each testcase's classname (the suite's
    /// name when absent) split at its last dot into package and class, error before failure,
    /// the outcome's message attribute, the time as a float. nil where Debian's python3 has no lxml
    /// away from CI (a message says so); under CI that throws (RequiredTool).
    static func readAsJenkins(_ xml: String) async throws -> [JenkinsCase]? {
        guard let python = try RequiredTool.pythonModule("lxml.etree", install: "apt-get install python3-lxml",
                                                         for: "CIFormatsTests: JUnit schema check") else { return nil }
        let files = try TemporaryDirectory(prefix: "atsprobe-junit")
        defer { files.remove() }
        let file = files.url.appendingPathComponent("junit.xml")
        try Data(xml.utf8).write(to: file)
        let schema = PlistFormatsTests.golden.appendingPathComponent("junit-jenkins.xsd").path
        let script = """
        import sys
        from lxml import etree
        doc = etree.parse(sys.argv[1], etree.XMLParser(resolve_entities=False, no_network=True))
        etree.XMLSchema(etree.parse(sys.argv[2])).assertValid(doc)
        root = doc.getroot()
        assert root.tag == "testsuites", root.tag
        def field(text): return (text or "").replace("\\t", " ").replace("\\n", " ")
        def suite(element):
            for child in element.findall("testsuite"): suite(child)
            if element.find("testcase") is None: return
            name = element.get("name")
            float(element.get("time").replace(",", ""))
            for case in element.findall("testcase"):
                classname = case.get("classname") or name
                package, _, cls = classname.rpartition(".")
                float(case.get("time", "0").replace(",", ""))
                outcome = case.find("error")
                if outcome is None: outcome = case.find("failure")
                status = "PASSED" if outcome is None else ("ERROR" if outcome.tag == "error" else "FAILED")
                message = "" if outcome is None else outcome.get("message")
                print("\\t".join(field(x) for x in [name, package, cls, case.get("name"), status, message]))
        suite(root)
        """
        let run = try await ChildProcess.run(python, ["-c", script, file.path, schema], timeout: 120)
        #expect(run.status == 0, "JUnit as Jenkins reads it: \(run.stdout)\(run.stderr)")
        return run.stdout.split(separator: "\n").map { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return JenkinsCase(suite: f[0], package: f[1], className: f[2], name: f[3], status: f[4], message: f.count > 5 ? f[5] : "")
        }
    }

    /// `audit --format FORMAT` over the mixed servers, writing its records too (exit 2: one target
    /// refused), then `report` of those records in the same format.
    static func auditThenReport(format: String, fixture: ExceptionFixture, input: String) async throws
        -> (live: BinaryRunner.Result, again: BinaryRunner.Result) {
        let recordsFiles = try TemporaryDirectory(prefix: "atsprobe-report")
        defer { recordsFiles.remove() }
        let records = recordsFiles.path("records.jsonl")
        let live = try await BinaryRunner.run(["audit", "--input", "-", "--ca-file", fixture.rootPath, "--timeout", "3",
                                               "--format", format, "--records", records], timeout: 120, stdin: input)
        #expect(live.status == 2, "stderr: \(live.stderr)")
        let again = try await BinaryRunner.run(["report", records, "--format", format, "--quiet"], timeout: 60)
        return (live, again)
    }

    @Test func auditJUnitReadsAsJenkinsAndEqualsTheReportOfItsRecords() async throws {
        try await ReportTests.withMixedServers { fixture, input in
            let (live, again) = try await Self.auditThenReport(format: "junit", fixture: fixture, input: input)
            #expect(live.stdout.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"atsprobe\" "))
            #expect(again.status == 2)
            #expect(again.stdout == live.stdout, "report of the JSON Lines equals the live run's JUnit")

            // By default one testcase per target, failing only as its verdict fails (issue 31).
            guard let cases = try await Self.readAsJenkins(live.stdout) else { return }
            #expect(cases.count == 4 && Set(cases.map(\.suite)) == ["atsprobe"], "\(cases)")
            #expect(cases.allSatisfy { $0.package == "atsprobe" }, "one package, each target its class")
            let byName = Dictionary(uniqueKeysWithValues: cases.map { ($0.name, $0) })
            #expect(byName.values.filter { $0.status == "PASSED" }.count == 1, "the good server passes: \(cases)")
            #expect(byName.values.filter { $0.status == "FAILED" }.count == 2, "TLS 1.0 needs an exception, the expired one none helps: \(cases)")
            let refused = try #require(byName.values.first { $0.status == "ERROR" }, "the refused target is an error, not a failure")
            #expect(refused.message.hasPrefix("unreachable: "), "\(refused)")
            #expect(byName.values.contains { $0.message.hasPrefix("needs an exception: NSExceptionMinimumTLSVersion=") }, "\(cases)")

            // --junit-cases tests: nscurl's tests per target, as before.
            let recordsFiles = try TemporaryDirectory(prefix: "atsprobe-report")
            defer { recordsFiles.remove() }
            let records = recordsFiles.path("records.jsonl")
            _ = try await BinaryRunner.run(["audit", "--input", "-", "--ca-file", fixture.rootPath, "--timeout", "3", "--quiet",
                                            "--format", "json", "--output", records], timeout: 120, stdin: input)
            let perTest = try await BinaryRunner.run(["report", records, "--format", "junit", "--junit-cases", "tests", "--quiet"], timeout: 60)
            guard let tests = try await Self.readAsJenkins(perTest.stdout) else { return }
            #expect(Set(tests.map(\.suite)).count == 4, "one suite per target: \(Set(tests.map(\.suite)))")
            let bySuite = Dictionary(grouping: tests, by: \.suite)
            for (suite, cases) in bySuite { #expect(cases.count == NSCurlMatrix.count, "\(suite): \(cases.count) testcases") }
            // The refused port: nothing answered TLS, so its tests are errors, not failures (issue 42);
            // every other target was tested.
            let erring = Dictionary(grouping: tests.filter { $0.status == "ERROR" }, by: \.suite)
            #expect(erring.count == 1 && erring.values.first?.count == NSCurlMatrix.count, "\(erring.mapValues(\.count))")
            #expect(tests.filter { $0.suite == erring.keys.first }.allSatisfy { $0.status == "ERROR" })
        }
    }

    @Test func auditSARIFLocatesEachFailingTargetAtItsURL() async throws {
        try await ReportTests.withMixedServers { fixture, input in
            let (live, again) = try await Self.auditThenReport(format: "sarif", fixture: fixture, input: input)
            let plistFixture = try PlistFixture()
            try await PlistFormatsTests.validateSARIF(live.stdout, fixture: plistFixture)
            #expect(again.stdout == live.stdout, "report of the JSON Lines equals the live run's SARIF")

            let log = try #require(jsonObject(live.stdout))
            let run = try #require((log["runs"] as? [[String: Any]])?.first)
            let rules = try #require(((run["tool"] as? [String: Any])?["driver"] as? [String: Any])?["rules"] as? [[String: Any]])
            let ids = rules.compactMap { $0["id"] as? String }
            #expect(Set(ids).count == ids.count && ids.allSatisfy { $0.hasPrefix("load/") }, "one rule per failure class: \(ids)")
            let results = try #require(run["results"] as? [[String: Any]])
            let uris = Set(results.compactMap { ((($0["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any])?["artifactLocation"] as? [String: Any])?["uri"] as? String })
            // The exception, the expired and the refused target: each at its URL; the passing one absent.
            #expect(uris.count == 3 && uris.allSatisfy { $0.hasPrefix("https://127.0.0.1:") }, "\(uris)")
            for result in results {
                let id = try #require(result["ruleId"] as? String)
                #expect(ids[result["ruleIndex"] as? Int ?? -1] == id)
            }
            #expect(results.contains { ($0["ruleId"] as? String) == "load/trust.expired" && ($0["level"] as? String) == "error" }, "\(results)")
            #expect(results.contains { ($0["level"] as? String) == "warning" && (($0["message"] as? [String: Any])?["text"] as? String)?.contains("NSExceptionMinimumTLSVersion=TLSv1.0") == true })
        }
    }

    /// JUnit from diagnose: a testcase per target by default (issue 31), failing as its verdict
    /// fails; `--junit-cases tests` gives one per nscurl test instead.
    @Test func diagnoseJUnitHasOneTestcasePerTargetOrPerNscurlTest() async throws {
        let fixture = try ExceptionFixture()
        try await fixture.withServer(configure: { $0.minVersion = .tls10; $0.maxVersion = .tls10 }) { port in
            let result = try await fixture.diagnose(port: port, ["--format", "junit"])
            #expect(result.status == 1, "\(result.stderr)")
            if let cases = try await Self.readAsJenkins(result.stdout) {
                #expect(cases.count == 1, "\(cases)")
                let target = try #require(cases.first)
                #expect(target.name == "https://localhost:\(port)/" && target.status == "FAILED", "\(target)")
            }
            let perTest = try await fixture.diagnose(port: port, ["--format", "junit", "--junit-cases", "tests"])
            #expect(perTest.status == 1, "\(perTest.stderr)")
            guard let cases = try await Self.readAsJenkins(perTest.stdout) else { return }
            #expect(cases.count == NSCurlMatrix.count, "nscurl's tests: \(cases.count)")
            let first = try #require(cases.first)
            #expect(first.name == "ATS Default Connection" && first.status == "FAILED")
            #expect(first.className == "https___localhost_\(port)_", "\(first.className)")
            // diagnose writes SARIF too, each failing target at its URL.
            let sarif = try await fixture.diagnose(port: port, ["--format", "sarif", "--sarif-category", "atsprobe-diagnose"])
            #expect(sarif.status == 1)
            // Its category as audit's and report's (issue 42): GitHub keeps each upload's alerts apart.
            #expect(sarif.stdout.contains("\"id\" : \"atsprobe-diagnose/\""), "\(sarif.stdout)")
            try await PlistFormatsTests.validateSARIF(sarif.stdout, fixture: try PlistFixture())
            #expect(sarif.stdout.contains("\"uri\" : \"https://localhost:\(port)/\""), "\(sarif.stdout)")
        }
    }

    /// `--sarif-category` without `--format sarif` is one answer in every command that writes SARIF:
    /// bad input (64), said before any file is read or any host is loaded. plist lint, plist
    /// check and app used to drop it silently, where diagnose and report refused it.
    @Test func aSARIFCategoryWithoutSARIFIsRefusedByEveryCommand() async throws {
        let missing = "/nonexistent/atsprobe-sarif-category"
        for arguments in [["plist", "lint", missing + ".plist"], ["plist", "check", missing + ".plist", "https://127.0.0.1:9/"],
                          ["app", missing + ".app"], ["diagnose", "https://127.0.0.1:9/"], ["report", missing + ".jsonl"]] {
            let result = try await BinaryRunner.run(arguments + ["--sarif-category", "atsprobe-x"], timeout: 60)
            #expect(result.status == 64 && result.stderr.contains("--sarif-category goes with --format sarif"), "\(arguments): \(result.stderr)")
        }
    }

    /// An error record whose input holds a newline, ESC, U+0001, U+FFFF, a bidi override and
    /// XML's five characters: the JUnit stays well-formed and schema-valid, Jenkins reads the
    /// escaped text back, and the SARIF leaves the record out (it names no URL).
    @Test func hostileRecordTextStaysInsideTheXML() async throws {
        let hostile = #"x\n<testcase name=\"evil\"/>&\u001B[31m\u0001\uFFFF\u202E'"#
        let record = #"{"schemaVersion":2,"kind":"error","verdict":"error","input":"\#(hostile)","line":7,"message":"bad \#(hostile)","run":\#(ReportRecordInputTests.run)}"#
        let (path, directory) = try ReportRecordInputTests.write(record + "\n")
        defer { directory.remove() }
        let junit = try await BinaryRunner.run(["report", path, "--format", "junit", "-q"], timeout: 30)
        #expect(junit.status == 64, "an error record: \(junit.stderr)")
        #expect(!junit.stdout.contains("<testcase name=\"evil\""))
        #expect(!junit.stdout.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || $0.value == 0xFFFF || $0.value == 0x202E })
        let escaped = #"x\x0A<testcase name="evil"/>&\x1B[31m\x01\u{FFFF}\u{202E}'"#
        if let cases = try await Self.readAsJenkins(junit.stdout) {
            // A testcase per target (the default): the input line names the case.
            #expect(cases.count == 1)
            #expect(cases.first?.status == "ERROR")
            #expect(cases.first?.name == escaped, "\(cases)")
        }
        // Per nscurl test, the target names the suite.
        let perTest = try await BinaryRunner.run(["report", path, "--format", "junit", "--junit-cases", "tests", "-q"], timeout: 30)
        #expect(perTest.status == 64 && !perTest.stdout.contains("<testcase name=\"evil\""))
        if let cases = try await Self.readAsJenkins(perTest.stdout) {
            #expect(cases.count == 1 && cases.first?.status == "ERROR")
            #expect(cases.first?.suite == escaped, "\(cases)")
        }
        let sarif = try await BinaryRunner.run(["report", path, "--format", "sarif", "-q"], timeout: 30)
        try await PlistFormatsTests.validateSARIF(sarif.stdout, fixture: try PlistFixture())
        #expect(((jsonObject(sarif.stdout)?["runs"] as? [[String: Any]])?.first?["results"] as? [Any])?.isEmpty == true)
    }

    /// Golden files from a fixed records file (Golden/ci-records.jsonl, an audit of loopback
    /// servers kept as written): `report --format junit` and `--format sarif` compared whole.
    @Test func junitAndSARIFOfFixedRecordsMatchTheirGoldens() async throws {
        let records = PlistFormatsTests.golden.appendingPathComponent("ci-records.jsonl").path
        let junit = try await BinaryRunner.run(["report", records, "--format", "junit", "--quiet"], timeout: 60)
        // The records hold a bad line: --quiet drops the summary, not the 64's one line (issue 42).
        #expect(junit.stderr.hasPrefix("atsprobe: exit 64: ") && junit.stderr.split(separator: "\n").count == 1, "\(junit.stderr)")
        try PlistFormatsTests.compareGolden(junit.stdout, "ci-junit.xml")
        _ = try await Self.readAsJenkins(junit.stdout)
        let sarif = try await BinaryRunner.run(["report", records, "--format", "sarif", "--quiet"], timeout: 60)
        try PlistFormatsTests.compareGolden(sarif.stdout, "ci-sarif.json")
        try await PlistFormatsTests.validateSARIF(sarif.stdout, fixture: try PlistFixture())
    }

    // MARK: app

    /// The demo .ipa of AppCommandTests (NSAllowsArbitraryLoads and an unneeded TLSv1.0 entry in
    /// the app; the extension, without a dictionary, loads a TLS 1.1 host): each result in the
    /// Info.plist it is about, as an artifact nested in the .ipa, at its key's line and column.
    @Test func appSARIFPlacesResultsInEachBundlesInfoPlistInsideTheArchive() async throws {
        let fixture = try PlistFixture()
        let app = AppCommandTests.app()
        let ipa = try fixture.write(Data(app.ipa()), name: "Demo.ipa")
        try await fixture.withServer(names: ["api.planted.test"]) { api in
            try await fixture.withServer(names: ["share.planted.test"], min: .tls11, max: .tls11) { share in
                let result = try await BinaryRunner.run(["app", ipa, "--exclude", "ct.planted.test", "--ca-file", fixture.rootPath, "--timeout", "5",
                                                         "--connect-to", "api.planted.test:443:127.0.0.1:\(api.port)",
                                                         "--connect-to", "share.planted.test:443:127.0.0.1:\(share.port)", "--format", "sarif"], timeout: 120)
                #expect(result.status == 1, "\(result.stderr)")
                try await PlistFormatsTests.validateSARIF(result.stdout, fixture: fixture)
                let log = try #require(jsonObject(result.stdout))
                let run = try #require((log["runs"] as? [[String: Any]])?.first)
                let artifacts = try #require(run["artifacts"] as? [[String: Any]])
                let uris = artifacts.map { ($0["location"] as? [String: Any])?["uri"] as? String }
                #expect(uris.first == "file://\(ipa)")
                // Bundles in AppScan's order: the app, then the others by path.
                #expect(Array(uris.dropFirst()) == ["Payload/Demo.app/Info.plist", "Payload/Demo.app/Frameworks/Net.framework/Info.plist",
                                                   "Payload/Demo.app/PlugIns/Share.appex/Info.plist"], "\(uris)")
                #expect(artifacts.dropFirst().allSatisfy { $0["parentIndex"] as? Int == 0 })
                let results = try #require(run["results"] as? [[String: Any]])
                func place(_ result: [String: Any]) -> (uri: String?, index: Int?, line: Int?, column: Int?) {
                    let physical = (result["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any]
                    let artifact = physical?["artifactLocation"] as? [String: Any]
                    let region = physical?["region"] as? [String: Int]
                    return (artifact?["uri"] as? String, artifact?["index"] as? Int, region?["startLine"], region?["startColumn"])
                }
                // The app's NSAllowsArbitraryLoads no host needs: at its key's line in the app's Info.plist.
                let plist = String(decoding: try #require(app.files["Info.plist"]), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
                let keyLine = try #require(plist.firstIndex { $0.contains("<key>NSAllowsArbitraryLoads</key>") }) + 1
                let unnecessary = try #require(results.first { $0["ruleId"] as? String == "unnecessary" && place($0).line == keyLine }, "\(results)")
                #expect(place(unnecessary).uri == "Payload/Demo.app/Info.plist" && place(unnecessary).index == 1)
                let column = plist[keyLine - 1].distance(from: plist[keyLine - 1].startIndex, to: try #require(plist[keyLine - 1].range(of: "<key>")).lowerBound) + 1
                #expect(place(unnecessary).column == column)
                // The extension's failing load: in the extension's Info.plist, the target URL beside it.
                let load = try #require(results.first { ($0["ruleId"] as? String)?.hasPrefix("load/") == true }, "\(results)")
                #expect(place(load).uri == "Payload/Demo.app/PlugIns/Share.appex/Info.plist" && place(load).index == 3)
                let related = ((load["relatedLocations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any])?["artifactLocation"] as? [String: Any]
                #expect(related?["uri"] as? String == "https://share.planted.test/")
                // The lint's warning about NSAllowsArbitraryLoads, under its rule.
                let rules = try #require(((run["tool"] as? [String: Any])?["driver"] as? [String: Any])?["rules"] as? [[String: Any]])
                let ids = rules.compactMap { $0["id"] as? String }
                #expect(Set(ids).count == ids.count && ids.contains("unknown-key") && ids.contains("unnecessary") && ids.contains(load["ruleId"] as? String ?? "?"))
                for result in results { #expect(ids[result["ruleIndex"] as? Int ?? -1] == result["ruleId"] as? String) }
            }
        }
    }

    /// An .app directory: no artifacts, each result at the Info.plist's own path (the input's
    /// joined with the plist's), at its key's line; offline, the lint findings only.
    @Test func appSARIFOfADirectoryPointsAtTheFileItself() async throws {
        let fixture = try PlistFixture()
        let app = AppCommandTests.app()
        let root = try app.writeApp(in: fixture.directory.path)
        let result = try await BinaryRunner.run(["app", root, "--offline", "--format", "sarif"], timeout: 60)
        #expect(result.status == 1, "lint warns: \(result.stderr)")
        try await PlistFormatsTests.validateSARIF(result.stdout, fixture: fixture)
        let run = try #require((jsonObject(result.stdout)?["runs"] as? [[String: Any]])?.first)
        #expect(run["artifacts"] == nil)
        let results = try #require(run["results"] as? [[String: Any]])
        #expect(!results.isEmpty && results.allSatisfy { !(($0["ruleId"] as? String) ?? "").hasPrefix("load/") }, "offline: lint only")
        let plist = String(decoding: try #require(app.files["Info.plist"]), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let keyLine = try #require(plist.firstIndex { $0.contains("<key>NSAllowsArbitraryLoads</key>") }) + 1
        let located = results.compactMap { result -> (String, Int)? in
            let physical = (result["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any]
            guard let uri = (physical?["artifactLocation"] as? [String: Any])?["uri"] as? String,
                  let line = (physical?["region"] as? [String: Int])?["startLine"] else { return nil }
            return (uri, line)
        }
        #expect(located.contains { $0.0 == "file://\(root)/Info.plist" && $0.1 == keyLine }, "\(located)")
    }

    // MARK: baselines

    /// worse.test served first with TLS 1.3 and 1.2 and forward-secret suites (passes), then by
    /// a server of TLS 1.2 with only a static-RSA suite (needs NSExceptionRequiresForwardSecrecy):
    /// --connect-to keeps the target's name while the server moves.
    @Test func aServerThatGotWorseFailsTheBaselineRunAndAnUnchangedOneDoesNot() async throws {
        let fixture = try ExceptionFixture()
        let spec = CertificateSpec(commonName: "worse.test", dnsNames: ["worse.test"], key: .rsa(bits: 2048))
        let identity = try fixture.pki.issue(spec)
        let files = try TemporaryDirectory(prefix: "atsprobe-report")
        defer { files.remove() }
        let old = files.path("old.jsonl"), new = files.path("new.jsonl")
        func audit(_ port: Int, _ extra: [String]) async throws -> BinaryRunner.Result {
            try await BinaryRunner.run(["audit", "--ca-file", fixture.rootPath, "--timeout", "5", "--quiet",
                                        "--connect-to", "worse.test:443:127.0.0.1:\(port)", "https://worse.test/"] + extra, timeout: 120)
        }
        try await fixture.withServer(identity: identity) { port in
            let first = try await audit(port, ["--format", "json", "--output", old])
            #expect(first.status == 0, "the good server passes: \(first.stderr)")
            let same = try await audit(port, ["--baseline", old, "--fail-on", "new"])
            #expect(same.status == 0, "nothing got worse: \(same.stdout)\(same.stderr)")
            #expect(same.stdout.contains("UNCHANGED    https://worse.test/: pass -> pass"), "\(same.stdout)")
        }
        try await fixture.withServer(identity: identity, configure: {
            $0.minVersion = .tls12; $0.maxVersion = .tls12; $0.cipherList = "AES128-GCM-SHA256"
        }) { port in
            let worse = try await audit(port, ["--baseline", old, "--fail-on", "new", "--records", new])
            #expect(worse.status == 1, "got worse: \(worse.stdout)\(worse.stderr)")
            #expect(worse.stdout.contains("Compared with \(old): 1 target: 1 regressed, 0 new, 0 fixed, 0 changed, 0 unchanged; 1 got worse"), "\(worse.stdout)")
            #expect(worse.stdout.contains("REGRESSED    https://worse.test/: pass -> exception"), "\(worse.stdout)")
            #expect(worse.stdout.contains("    now fails: ATS Default Connection"), "\(worse.stdout)")
            #expect(worse.stdout.contains("    exception now needs: NSExceptionRequiresForwardSecrecy=false"), "\(worse.stdout)")

            // Without --fail-on new the run fails as any audit would; the comparison is the same.
            let plain = try await audit(port, ["--baseline", old])
            #expect(plain.status == 1)
            // A document format keeps stdout a document: the comparison goes to stderr.
            let json = try await BinaryRunner.run(["audit", "--ca-file", fixture.rootPath, "--timeout", "5", "--format", "json",
                                                   "--connect-to", "worse.test:443:127.0.0.1:\(port)", "https://worse.test/",
                                                   "--baseline", old, "--fail-on", "new"], timeout: 120)
            #expect(json.status == 1)
            #expect(json.stdout.split(separator: "\n").count == 1 && jsonObject(json.stdout) != nil, "one JSON Lines record: \(json.stdout)")
            #expect(json.stderr.contains("REGRESSED    https://worse.test/: pass -> exception"), "\(json.stderr)")

            let diff = try await BinaryRunner.run(["report", "--diff", old, new], timeout: 60)
            #expect(diff.status == 1, "\(diff.stderr)")
            let compared = try #require(worse.stdout.range(of: "Compared with "))
            #expect(diff.stdout == String(worse.stdout[compared.lowerBound...]), "report --diff prints what audit --baseline printed")
            // A baseline that started after the run it is compared with: refused (issue 42), unless
            // compared anyway. The two runs above may start within one second (a run's start is
            // kept in whole seconds), which orders neither; so NEW's records, moved a day on, are
            // the baseline here.
            let newText = try String(contentsOfFile: new, encoding: .utf8)
            let started = try #require(newText.firstMatch(of: /"startedAt" ?: ?"([0-9T:\-]+)Z"/))
            let startedDate = try #require(ISO8601DateFormatter().date(from: String(started.output.1) + "Z"))
            let dayLater = ISO8601DateFormatter().string(from: startedDate.addingTimeInterval(86_400))
            let later = files.path("later.jsonl")
            try newText.replacingOccurrences(of: String(started.output.1) + "Z", with: dayLater).write(toFile: later, atomically: true, encoding: .utf8)
            let refused = try await BinaryRunner.run(["report", "--diff", later, old], timeout: 60)
            #expect(refused.status == 64 && refused.stderr.contains("the order: the baseline started at"), "\(refused.stderr)")
            let back = try await BinaryRunner.run(["report", "--diff", new, old, "--compare-anyway"], timeout: 60)
            #expect(back.status == 0, "the other way round it got better")
            #expect(back.stdout.contains("FIXED        https://worse.test/: exception -> pass"), "\(back.stdout)")
        }
    }

    @Test func failOnNewWithoutABaselineIsAUsageError() async throws {
        let result = try await BinaryRunner.run(["audit", "--fail-on", "new", "127.0.0.1:1"], timeout: 60)
        #expect(result.status == 64)
        #expect(result.stderr == "atsprobe: --fail-on new compares with an earlier run: give it with --baseline OLD.jsonl\n", "\(result.stderr)")
        let diff = try await BinaryRunner.run(["report", "--diff", "one.jsonl"], timeout: 60)
        #expect(diff.status == 64 && diff.stderr.contains("--diff takes two runs"), "\(diff.stderr)")
    }
}

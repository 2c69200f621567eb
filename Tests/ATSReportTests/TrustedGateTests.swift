import ATSReport
import Foundation
import Testing
import TestSupport
import TLSFacts

/// Issue 42 as a library: a baseline must be comparable; nothing a server or file sends is
/// live Markdown (rendered by cmark-gfm with GitHub's extensions); a compact baseline gives the
/// same comparison; SARIF as GitHub keeps it (category, the 25,000 cut, https or no helpUri,
/// fingerprints by relative path); JUnit's unreachable target errs.
@Suite struct TrustedGateTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func run(ruleSet: String = "ios26", at: String? = nil, started: String = "2026-11-27T05:00:00Z", anchors: String = "sha256:aaa",
                    options: [String] = ["--rules", "ios26"]) throws -> RunInfo {
        var run = RunInfo(toolVersion: "0.1.0", openSSLVersion: "OpenSSL 3", ruleSet: ruleSet, trustStore: "Apple's root store",
                          ctLogList: "built in", startedAt: try RequestedInstant(parsing: started).date)
        run.judgedAt = try at.map { try RequestedInstant(parsing: $0).date }
        run.anchorsDigest = anchors
        run.verdictOptions = options
        run.input = "ats/targets.txt"
        return run
    }

    // MARK: comparable or refused

    @Test func aBaselineUnderOtherOptionsOrNewerIsNotComparable() throws {
        let now = try Self.run(started: "2026-11-28T05:00:00Z")
        #expect(Comparability.differences(baseline: try Self.run(), run: now).isEmpty, "the same options, recorded earlier")
        let at = Comparability.differences(baseline: try Self.run(at: "2027-12-31", options: ["--rules", "ios26", "--at", "2027-12-31T00:00:00Z"]), run: now)
        #expect(at == ["the instant certificates are judged at: the baseline's 2027-12-31T00:00:00Z (--at), this run's when it ran"], "\(at)")
        let ca = Comparability.differences(baseline: try Self.run(anchors: "sha256:bbb"), run: now)
        #expect(ca.count == 1 && ca[0].hasPrefix("the anchors: the baseline's trust store holds other roots"), "\(ca)")
        let rules = Comparability.differences(baseline: try Self.run(ruleSet: "documented", options: ["--rules", "documented"]), run: now)
        #expect(rules == ["the rule set: the baseline's documented, this run's ios26 (--rules)"], "\(rules)")
        let swapped = Comparability.differences(baseline: now, run: try Self.run())
        #expect(swapped.count == 1 && swapped[0].hasPrefix("the order: the baseline started at 2026-11-28T05:00:00Z, after this run"), "\(swapped)")
        let aia = Comparability.differences(baseline: try Self.run(options: ["--rules", "ios26", "--no-aia"]), run: now)
        #expect(aia == ["the options that change a verdict: the baseline's --no-aia, this run's none"], "\(aia)")
        // The refusal is one line, with the command that records a comparable baseline.
        var withCA = now
        withCA.verdictOptions = ["--rules", "ios26", "--ca-file", "ats/corp root.pem"]
        let line = Comparability.refusal(ca, baseline: "ats/baseline.jsonl", run: withCA)
        #expect(!line.contains("\n"))
        #expect(line.hasSuffix("Record a comparable baseline with this run's options: atsprobe audit --input ats/targets.txt --rules ios26 --ca-file 'ats/corp root.pem' --records ats/baseline.jsonl (or give --compare-anyway to compare them all the same)"), "\(line)")
    }

    @Test func comparedAnywayEveryFormatSaysSoFirst() throws {
        let old = [BaselineComparison.Side(try CIFormatTests.records([CIFormatTests.record("a.test", verdict: "pass", results: [("ATS Default Connection", true)])])[0])]
        let new = [BaselineComparison.Side(try CIFormatTests.records([CIFormatTests.record("a.test", verdict: "exception", results: [("ATS Default Connection", false)], key: "K")])[0])]
        var comparison = BaselineComparison(old: old, new: new)
        comparison.notComparable = ["the rule set: the baseline's documented, this run's ios26 (--rules)"]
        #expect(comparison.text(baseline: "old").hasPrefix("NOT COMPARABLE, compared anyway (--compare-anyway): the rule set"))
        #expect(comparison.markdown(baseline: "old").hasPrefix("> **Not comparable: compared anyway** (`--compare-anyway`): `the rule set"))
        #expect(comparison.json(baseline: "old").contains("\"notComparable\""))
        #expect(comparison.junit().contains("<testcase name=\"baseline is comparable\" classname=\"atsprobe.baseline\" time=\"0.000\">\n      <skipped message=\"NOT COMPARABLE"))
        let sarif = comparison.sarif(input: nil, toolVersion: nil)
        #expect(sarif.runs[0].invocations?.first?.toolExecutionNotifications?.first?.message.text.hasPrefix("NOT COMPARABLE") == true)
        // Comparable: none of it.
        let plain = BaselineComparison(old: old, new: new)
        #expect(!plain.text(baseline: "old").contains("COMPARABLE") && !plain.markdown(baseline: "old").contains("omparable"))
    }

    // MARK: nothing a server sends is live Markdown

    static let hostile = "CN=x @octo-org/security-team [pwn](https://evil.example/) <img src=x> :smile: www.evil.example"

    /// GitHub's flavour as cmark-gfm renders it, autolinks on, raw HTML kept (GitHub keeps <img>).
    static func renderGFM(_ markdown: String) async throws -> String? {
        guard let tool = try RequiredTool.executable(["/usr/bin/cmark-gfm"], install: "apt-get install cmark-gfm",
                                                      for: "TrustedGateTests: rendering Markdown as GitHub does") else { return nil }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.write("comment.md", markdown)
        let result = try await ChildProcess.run(tool, ["--unsafe", "-e", "autolink", "-e", "table", "-e", "strikethrough", "-e", "tagfilter", file], timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout
    }

    /// The HTML with every <code>...</code> element's content removed: what GitHub would still
    /// read for mentions and emoji shortcodes (it skips code).
    static func outsideCode(_ html: String) -> String {
        var out = "", rest = Substring(html)
        while let open = rest.range(of: "<code>") {
            out += rest[..<open.lowerBound]
            guard let close = rest.range(of: "</code>", range: open.upperBound..<rest.endIndex) else { return out }
            rest = rest[close.upperBound...]
        }
        return out + rest
    }

    static func expectNothingLive(_ html: String, _ what: String) {
        #expect(!html.contains("<a "), "\(what): a link: \(html)")
        #expect(!html.contains("<img"), "\(what): an image: \(html)")
        let outside = outsideCode(html)
        for live in ["@octo-org", ":smile:", "www.evil.example", "evil.example", "src=x"] {
            #expect(!outside.contains(live), "\(what): '\(live)' outside a code span: \(outside)")
        }
    }

    @Test(arguments: [hostile, "a`b``c " + hostile, "`" + hostile + "`", hostile + " | cell"])
    func aHostileSubjectURLAndInputLineStayInsideCodeSpans(text: String) async throws {
        let json = { (s: String) in String(decoding: try JSONEncoder().encode(s), as: UTF8.self) }
        // The hostile title on a test of its own: the default connection is known by its title.
        let line = CIFormatTests.record("a.test", verdict: "no-exception", results: [("ATS Default Connection", false), ("T", false)])
            .replacingOccurrences(of: #""input":"a.test""#, with: #""input":\#(try json(text))"#)
            .replacingOccurrences(of: #""message":"the suite is not forward secret""#, with: #""message":\#(try json("the name does not match " + text))"#)
            .replacingOccurrences(of: #""title":"T""#, with: #""title":\#(try json(text))"#)
        let hostileURL = CIFormatTests.record("b.test", verdict: "exception", results: [("ATS Default Connection", false)], key: "K")
            .replacingOccurrences(of: #""url":"https://b.test/""#, with: #""url":\#(try json("https://b.test/" + text))"#)
        let records = try CIFormatTests.records([line, hostileURL])
        let before = try CIFormatTests.records([CIFormatTests.record("a.test", verdict: "exception", results: [("ATS Default Connection", false)], key: "K")])
            .map(BaselineComparison.Side.init)
        var comparison = BaselineComparison(old: before.map { side in var side = side; side.name = "https://a.test/"; side.input = text; return side },
                                            new: records.map(BaselineComparison.Side.init))
        comparison.notComparable = [text]
        let comment = comparison.markdown(baseline: text)
        #expect(comment.contains("reason now"), "\(comment)")
        guard let html = try await Self.renderGFM(comment) else { return }
        Self.expectNothingLive(html, "report --diff --format markdown")
        guard let report = try await Self.renderGFM(Report(records).render(.markdown, verbose: false)) else { return }
        Self.expectNothingLive(report, "report --format markdown")
    }

    @Test func aCodeSpanCannotBeClosedByTheTextItHolds() {
        #expect(ReportEscaping.markdown("plain") == "`plain`")
        #expect(ReportEscaping.markdown("a`b") == "``a`b``")
        #expect(ReportEscaping.markdown("a``b`") == "``` a``b` ```")
        #expect(ReportEscaping.markdown("") == "")
        #expect(ReportEscaping.markdownCell("a|b") == "`a\\|b`")
    }

    // MARK: a compact baseline

    @Test func aCompactBaselineGivesTheSameComparisonAndStaysSmall() throws {
        let url = Self.repository.appendingPathComponent("Tests/ATSReportTests/Records/audit.jsonl")
        let full = try RunRecords.sides([url.path])
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let compactText = CompactBaseline.render(full.sides, run: full.run)
        let compactPath = try directory.write("baseline.jsonl", compactText)
        let compact = try RunRecords.sides([compactPath])
        #expect(compact.sides == full.sides.map { side in
            var side = side
            side.secondsUntilWorse = nil
            side.forecastHorizon = nil
            return side
        })
        #expect(compact.run == full.run)
        // The same comparison against the same run, in every state.
        let new = full.sides.map { side in var side = side; if side.verdict == .pass { side.verdict = .exception; side.keys = ["K=1"] }; return side }
        let fromFull = BaselineComparison(old: full.sides, new: new), fromCompact = BaselineComparison(old: compact.sides, new: new)
        #expect(fromFull.text(baseline: "b") == fromCompact.text(baseline: "b"))
        #expect(fromFull.json(baseline: "b") == fromCompact.json(baseline: "b"))
        // At most 2 KB a target (the run's line once): the records are 28 KB a target.
        let lines = compactText.split(separator: "\n")
        #expect(lines.dropFirst().allSatisfy { $0.utf8.count <= 2048 }, "\(lines.map(\.utf8.count))")
        #expect(lines.count == full.sides.count + 1)
    }

    @Test func acceptingOneTargetMovesOnlyItForward() throws {
        let records = try CIFormatTests.records([
            CIFormatTests.record("a.test", verdict: "pass", results: [("ATS Default Connection", true)]),
            CIFormatTests.record("b.test", verdict: "pass", results: [("ATS Default Connection", true)]),
        ]).map(BaselineComparison.Side.init)
        var worse = records
        for index in worse.indices { worse[index].verdict = .noException }
        let comparison = BaselineComparison(old: records, new: worse, accepted: ["https://b.test/"])
        #expect(comparison.entries.map(\.state) == [.regressed, .accepted] && comparison.worse.map(\.name) == ["https://a.test/"])
        let moved = try CompactBaseline.accepting(["b.test"], baseline: records, run: worse)
        #expect(moved.map(\.verdict) == [.pass, .noException])
        #expect(throws: (any Error).self) { try CompactBaseline.accepting(["c.test"], baseline: records, run: worse) }
    }

    // MARK: --fail-on expiring for report and report --diff

    @Test func expiringReadsTheForecastOrSaysWhatItTakes() throws {
        var side = BaselineComparison.Side(try CIFormatTests.records([CIFormatTests.record("a.test", verdict: "pass", results: [("ATS Default Connection", true)])])[0])
        #expect(throws: (any Error).self) { try BaselineComparison.Side.worsens([side], within: 30 * 86_400) }
        side.forecastHorizon = 90 * 86_400
        #expect(try !BaselineComparison.Side.worsens([side], within: 30 * 86_400), "no change within the horizon")
        side.secondsUntilWorse = 19 * 86_400
        #expect(try BaselineComparison.Side.worsens([side], within: 30 * 86_400), "worse in 19 days, within 30")
        #expect(try !BaselineComparison.Side.worsens([side], within: 10 * 86_400), "not within 10")
        #expect(throws: (any Error).self) { try BaselineComparison.Side.worsens([side], within: 100 * 86_400) }
    }

    // MARK: SARIF as GitHub keeps it

    static func findings(_ count: Int) -> [SARIFFinding] {
        (0..<count).map { index in
            SARIFFinding(rule: "load/ats.notForwardSecret", level: index % 2 == 0 ? .warning : .error, message: "target \(index)",
                         place: .file(uri: "ats/targets.txt", artifact: nil, line: index + 1, column: nil), fingerprint: "f\(index)")
        }
    }

    @Test func theCategoryIsSetAndMoreThan25000ResultsAreCutWithAWarning() throws {
        let log = ReportSARIF.log(Self.findings(26_000), rules: [ReportSARIF.loadRule("load/ats.notForwardSecret", under: "default ATS")], toolVersion: "0.1.0")
        let (finished, warning) = log.finished(category: "atsprobe-audit")
        #expect(finished.runs.allSatisfy { $0.automationDetails?.id == "atsprobe-audit/" })
        #expect(finished.runs[0].results.count == 25_000)
        #expect(finished.runs[0].results.filter { $0.level == .error }.count == 13_000, "every error kept before any warning")
        #expect(warning?.hasPrefix("SARIF: 26000 results, over GitHub's 25000 a run") == true, "\(warning ?? "")")
        #expect(finished.runs[0].invocations?.first?.toolExecutionNotifications?.count == 1)
        let small = ReportSARIF.log(Self.findings(3), rules: [], toolVersion: nil).finished(category: nil)
        #expect(small.warning == nil && small.log.runs[0].automationDetails == nil && small.log.runs[0].invocations == nil)
        try Self.validate(finished.json)
    }

    @Test func helpURIsAreNeverFileURLsAndFingerprintsKeepTheRelativePath() throws {
        let app = SARIFFinding(rule: "ats.arbitrary-loads", level: .warning, message: "m", place: .file(uri: "App/Info.plist", artifact: nil, line: 3, column: 5))
        let ext = SARIFFinding(rule: "ats.arbitrary-loads", level: .warning, message: "m", place: .file(uri: "Ext/Info.plist", artifact: nil, line: 3, column: 5))
        let log = ReportSARIF.log([app, ext], rules: [.init(id: "ats.arbitrary-loads")], toolVersion: "0.1.0")
        let prints = log.runs[0].results.compactMap { $0.partialFingerprints?[SARIFRules.fingerprintKey] }
        #expect(prints.count == 2 && prints[0] != prints[1], "an app's and its extension's Info.plist are two alerts")
        let json = log.json
        #expect(!json.contains("file://"), "\(json)")
        for rule in log.runs[0].tool.driver.rules { #expect(rule.helpUri == nil || rule.helpUri?.hasPrefix("https://") == true) }
        // The same file under the checkout, absolute, fingerprints as its relative path.
        #expect(ReportSARIF.sourceRelative("file:///work/repo/App/Info.plist", root: "/work/repo") == "App/Info.plist")
        try Self.validate(json)
    }

    /// Validates against the full SARIF 2.1.0 schema (../shared/data/sarif) with Debian's jsonschema.
    static func validate(_ sarif: String) throws {
        let schema = repository.deletingLastPathComponent().appendingPathComponent("shared/data/sarif/sarif-schema-2.1.0.json").path
        guard try RequiredTool.condition(FileManager.default.fileExists(atPath: schema), "no \(schema)", for: "TrustedGateTests: the full SARIF schema"),
              let python = try RequiredTool.pythonModule("jsonschema", install: "apt-get install python3-jsonschema", for: "TrustedGateTests: SARIF validation")
        else { return }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.write("log.sarif", sarif)
        let script = "import json,sys,jsonschema\ns=json.load(open(sys.argv[1]))\nd=json.load(open(sys.argv[2]))\njsonschema.Draft4Validator(s).validate(d)\nprint('ok')"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script, schema, file]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0 && output.hasSuffix("ok\n"), "\(output.suffix(2000))")
    }

    // MARK: JUnit

    @Test func anUnreachableTargetsTestsAreErrorsNotFailures() throws {
        let line = CIFormatTests.record("down.test", verdict: "unreachable", results: (1...16).map { ("test \($0)", false) }, code: "unreachable.connectionRefused")
            .replacingOccurrences(of: #""reachability":"answered""#, with: #""reachability":"unreachable""#)
        let xml = Report(try CIFormatTests.records([line])).render(.junit, verbose: false, junitCases: .tests)
        #expect(xml.contains("failures=\"0\" errors=\"16\""), "\(xml.prefix(400))")
        #expect(!xml.contains("<failure"))
    }
}

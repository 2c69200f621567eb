import ATSPolicy
import ATSReport
import Foundation
import Testing

/// The CI formats and baselines as a library: JUnit's escaping and counts, SARIF's places,
/// and the comparison of two runs, from records written here.
@Suite struct CIFormatTests {
    /// A result record whose tests pass or fail as `results` says (title: passed), the first
    /// test's failure of class `code`.
    static func record(_ input: String, verdict: String, results: [(String, Bool)], code: String = "notForwardSecret",
                       key: String? = nil) -> String {
        let tests = results.map { title, passed in
            let reasons = passed ? "[]" : #"[{"kind":"\#(code)","layer":"ats","message":"the suite is not forward secret"}]"#
            return #"{"section":"Default","title":"\#(title)","dictionary":{},"result":"\#(passed ? "PASS" : "FAIL")","#
                + #""verdict":{"passed":\#(passed),"reasons":\#(reasons)},"hops":[]}"#
        }.joined(separator: ",")
        let suggestion = key.map { #"{"kind":"exception","domain":"\#(input)","exception":{"\#($0)":false}}"# } ?? #"{"kind":"none"}"#
        return #"{"schemaVersion":2,"kind":"result","verdict":"\#(verdict)","input":"\#(input)","line":1,"#
            + #""target":{"url":"https://\#(input)/","host":"\#(input)","port":443},"ruleSet":"ios26","handshakes":1,"#
            + #""wallMilliseconds":1234.5,"reachability":"answered","defaultPasses":\#(verdict == "pass"),"tests":[\#(tests)],"#
            + #""suggestion":\#(suggestion)}"#
    }

    static func records(_ lines: [String]) throws -> [AuditRecord] {
        try ReportReader.records(from: Array((lines.joined(separator: "\n") + "\n").utf8), name: "'f'")
    }

    @Test func junitCountsEachTestAndEscapesHostileNames() throws {
        // JSON escapes: U+0001 and U+FFFF (neither may appear in XML 1.0), and XML's five characters.
        let hostile = #"\u0001<b>&\"'\uFFFF"#
        let line = Self.record("x", verdict: "exception", results: [("ATS Default Connection", false), ("TLSv1.2", true)],
                               key: "NSExceptionRequiresForwardSecrecy")
            .replacingOccurrences(of: #""title":"TLSv1.2""#, with: #""title":"TLSv1.2 "# + hostile + #"""#)
            .replacingOccurrences(of: #""url":"https://x/""#, with: #""url":"https://a.test"# + hostile + #"/""#)
        let xml = Report(try Self.records([line])).render(.junit, verbose: false, junitCases: .tests)
        let escaped = #"\x01&lt;b&gt;&amp;&quot;&#39;\u{FFFF}"#
        #expect(xml.hasPrefix(#"<?xml version="1.0" encoding="UTF-8"?>"# + "\n" + #"<testsuites name="atsprobe" tests="2" failures="1" errors="0" time="1.235">"#), "\(xml)")
        #expect(xml.contains(#"<testsuite name="https://a.test"# + escaped + #"/" tests="2" failures="1" errors="0" skipped="0" time="1.235">"#), "\(xml)")
        #expect(xml.contains(#"<testcase name="TLSv1.2 "# + escaped + #"" classname="atsprobe.https___a_test__b______" time="0.000"/>"#), "\(xml)")
        #expect(xml.contains(#"<failure message="the suite is not forward secret" type="load/notForwardSecret">reason (notForwardSecret): the suite is not forward secret"#), "\(xml)")
        #expect(!xml.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || $0.value == 0xFFFF }, "no character XML 1.0 refuses")
    }

    @Test func sarifOfAnAuditPlacesEachFailureAtItsURL() throws {
        let lines = [Self.record("a.test", verdict: "exception", results: [("ATS Default Connection", false)], key: "NSExceptionRequiresForwardSecrecy"),
                     Self.record("b.test", verdict: "pass", results: [("ATS Default Connection", true)])]
        let log = ReportSARIF.audit(Report(try Self.records(lines)))
        let results = log.runs[0].results
        #expect(results.count == 1)
        #expect(results[0].ruleId == "load/notForwardSecret" && results[0].level == .warning)
        #expect(results[0].locations[0].physicalLocation.artifactLocation.uri == "https://a.test/")
        #expect(log.runs[0].tool.driver.rules.map(\.id) == ["load/notForwardSecret"])
        #expect(SARIFLog.urlURI("https://a b/\u{E9}") == "https://a%20b/%C3%A9")
    }

    @Test func aBaselineMarksEachTargetAndWhatGotWorse() throws {
        let both = [("ATS Default Connection", true), ("TLSv1.3", true)]
        let old = try Self.records([
            Self.record("same.test", verdict: "pass", results: both),
            Self.record("worse.test", verdict: "pass", results: both),
            Self.record("fixed.test", verdict: "exception", results: [("ATS Default Connection", false), ("TLSv1.3", true)], key: "K"),
            Self.record("moved.test", verdict: "exception", results: [("ATS Default Connection", false), ("TLSv1.3", true)], key: "K"),
            Self.record("gone.test", verdict: "pass", results: both),
        ])
        let new = try Self.records([
            Self.record("same.test", verdict: "pass", results: both),
            Self.record("worse.test", verdict: "exception", results: [("ATS Default Connection", false), ("TLSv1.3", true)], key: "K"),
            Self.record("fixed.test", verdict: "pass", results: both),
            Self.record("moved.test", verdict: "exception", results: [("ATS Default Connection", false), ("TLSv1.3", false)], key: "K"),
            Self.record("added.test", verdict: "pass", results: both),
        ])
        let comparison = BaselineComparison(old: old.map(BaselineComparison.Side.init), new: new.map(BaselineComparison.Side.init))
        let states = Dictionary(uniqueKeysWithValues: comparison.entries.map { ($0.name, $0.state) })
        // worse.test was in the baseline: it regressed (not NEW); added.test was not: NEW, and passing, not worse.
        #expect(states == ["https://same.test/": .unchanged, "https://worse.test/": .regressed, "https://fixed.test/": .fixed,
                           "https://moved.test/": .regressed, "https://added.test/": .new])
        #expect(comparison.worse.map(\.name).sorted() == ["https://moved.test/", "https://worse.test/"])
        #expect(comparison.entries.first { $0.name == "https://moved.test/" }?.nowFailing == ["TLSv1.3"])
        #expect(comparison.absent == ["https://gone.test/"])
        let text = comparison.text(baseline: "old.jsonl")
        #expect(text.hasPrefix("Compared with old.jsonl: 5 targets: 2 regressed, 1 new, 1 fixed, 0 changed, 1 unchanged; 2 got worse; 1 in the baseline not audited\n"), "\(text)")
        #expect(text.contains("REGRESSED    https://moved.test/: exception -> exception\n    now fails: TLSv1.3\n"), "\(text)")
        #expect(text.contains("NEW          https://added.test/: not in the baseline -> pass\n"), "\(text)")
        // What got worse leads.
        let firstWorse = try #require(text.range(of: "REGRESSED")), firstOther = try #require(text.range(of: "NEW "))
        #expect(firstWorse.lowerBound < firstOther.lowerBound)

        // The other way round only fixed.test got worse (it fails again); gone.test, not in that
        // baseline and passing, is not worse.
        let back = BaselineComparison(old: new.map(BaselineComparison.Side.init), new: old.map(BaselineComparison.Side.init))
        #expect(back.worse.map(\.name) == ["https://fixed.test/"], "\(back.worse.map(\.name))")
        #expect(back.entries.first { $0.name == "https://gone.test/" }?.state == .new)
    }
}

/// Reports grouped by origin (issue 25): one matrix row per origin and result, the URLs under
/// it; Markdown within one pull-request comment, its details folded.
@Suite struct OriginGroupingTests {
    /// nscurl's tests by their titles (`NSCurlMatrix.titles`: the matrix's columns): the first fails or passes, the rest pass.
    static let fails = NSCurlMatrix.titles.enumerated().map { ($0.element, $0.offset != 0) }
    static let passes = NSCurlMatrix.titles.map { ($0, true) }

    /// A record of `url` (host and port read from it) with these results.
    static func record(_ url: String, line: Int, verdict: String, results: [(String, Bool)]) -> String {
        let rest = url.dropFirst("https://".count)
        let authority = rest.split(separator: "/", maxSplits: 1).first.map(String.init) ?? ""
        let parts = authority.split(separator: ":")
        let host = String(parts[0]), port = parts.count > 1 ? Int(parts[1])! : 443
        return CIFormatTests.record(host, verdict: verdict, results: results, key: verdict == "exception" ? "K" : nil)
            .replacingOccurrences(of: #""url":"https://\#(host)/","host":"\#(host)","port":443"#,
                                  with: #""url":"\#(url)","host":"\#(host)","port":\#(port)"#)
            .replacingOccurrences(of: #""input":"\#(host)","line":1"#, with: #""input":"\#(url)","line":\#(line)"#)
    }

    static var report: Report {
        get throws {
            try Report(CIFormatTests.records([
                record("https://a.test/one", line: 1, verdict: "pass", results: passes),
                record("https://b.test:8443/", line: 2, verdict: "exception", results: fails),
                record("https://a.test/two", line: 3, verdict: "pass", results: passes),
                record("https://a.test/three", line: 4, verdict: "exception", results: fails),
                record("https://a.test:8443/four", line: 5, verdict: "pass", results: passes),
            ]))
        }
    }

    @Test func oneRowPerOriginAndResultWithItsURLsInInputOrder() throws {
        let report = try Self.report
        let rows = report.originRows.map { "\($0.origin) \($0.verdict.rawValue) \($0.members.map { report.records[$0].line ?? 0 })" }
        #expect(rows == ["https://a.test pass [1, 3]", "https://a.test exception [4]", "https://b.test:8443 exception [2]",
                         "https://a.test:8443 pass [5]"], "\(rows)")
        let html = report.render(.html, verbose: false)
        #expect(html.contains(##"<tr><th scope="row"><span class="origin">https://a.test</span> <span class="count">2 URLs</span><ul class="urls"><li><a href="#t1">/one</a></li><li><a href="#t3">/two</a></li></ul></th><td class="v-pass">pass</td>"##), "\(html)")
        #expect(html.contains(##"<tr><th scope="row"><a href="#t2">https://b.test:8443/</a></th>"##))
        #expect(html.components(separatedBy: "<tr><th scope=\"row\"><").count - 1 == 4, "4 matrix rows")
        let markdown = report.render(.markdown, verbose: false)
        #expect(markdown.contains("| `https://a.test` (2 URLs: `/one`, `/two`) | pass |" + String(repeating: " ✓ PASS |", count: NSCurlMatrix.count) + "\n"), "\(markdown)")
        #expect(markdown.contains("| `https://a.test/three` | exception | ✗ FAIL |" + String(repeating: " ✓ PASS |", count: NSCurlMatrix.count - 1) + "\n"), "\(markdown)")
        #expect(markdown.components(separatedBy: "<details>").count - 1 == 5, "each target folded")
        #expect(markdown.contains("Each target's details (why, the minimal exception, the server fixes) are folded: open a target to read them.\n"))
        #expect(!markdown.contains("left out"))
        #expect(markdown.contains("```xml\n<key>a.test</key>\n<dict>\n    <key>K</key>\n    <false/>\n</dict>\n```"), "tabs as spaces, not \\x09: \(markdown)")
    }

    /// 3,000 targets: far past one comment, so details are left out, said in a line, and the
    /// whole stays within 65,536 characters.
    @Test func markdownFitsAPullRequestComment() throws {
        let lines = (1...3000).map { Self.record("https://h\($0 % 40).test/p\($0)", line: $0, verdict: $0 % 2 == 0 ? "pass" : "exception",
                                                 results: $0 % 2 == 0 ? Self.passes : Self.fails) }
        let markdown = Report(try CIFormatTests.records(lines)).render(.markdown, verbose: false)
        #expect(markdown.utf8.count <= ReportMarkdown.commentLimit, "\(markdown.utf8.count) bytes")
        #expect(markdown.utf8.count > ReportMarkdown.commentLimit - 2000, "the budget is used, not wasted")
        let kept = markdown.components(separatedBy: "<details>").count - 1
        #expect(kept > 0 && kept < 3000)
        #expect(markdown.hasSuffix("\n\(3000 - kept) of 3000 targets' details are left out to fit a pull-request comment (65536 characters): `atsprobe report` of the records with `--format html` has them all.\n"))
        #expect(markdown.components(separatedBy: "</details>").count - 1 == kept, "every block opened is closed")
    }
}

import ATSReport
import Foundation
import Testing
import TLSFacts

/// Issue 31 as a library: instants that are the ones asked, a target held twice refused,
/// diffs that say what got worse, JUnit as CI reads it and SARIF as code scanning reads it.
@Suite struct GateTests {
    // MARK: --at

    static func instant(_ text: String) throws -> String {
        RequestedInstant.iso(try RequestedInstant(parsing: text).date)
    }

    @Test func theInstantAskedIsTheInstantJudged() throws {
        #expect(try Self.instant("2025-01-31") == "2025-01-31T00:00:00Z")
        #expect(try Self.instant("2025-01-31T12:00:00Z") == "2025-01-31T12:00:00Z")
        #expect(try Self.instant("2025-01-31T12:00Z") == "2025-01-31T12:00:00Z", "ISO 8601 without seconds")
        #expect(try Self.instant("2025-01-31t12:30:15z") == "2025-01-31T12:30:15Z", "RFC 3339 allows t and z")
        #expect(try Self.instant("2025-01-31 12:30:15Z") == "2025-01-31T12:30:15Z", "RFC 3339 allows a space")
        #expect(try Self.instant("2025-01-31T12:00:00+02:00") == "2025-01-31T10:00:00Z")
        #expect(try Self.instant("2025-01-31T23:30:00-01:00") == "2025-02-01T00:30:00Z")
        #expect(try Self.instant("2024-02-29") == "2024-02-29T00:00:00Z", "a leap day")
        #expect(try Self.instant("2025-01-31T12:00:00.75Z") == "2025-01-31T12:00:00Z")
        #expect(try RequestedInstant(parsing: "1970-01-01T00:00:00Z").date == Date(timeIntervalSince1970: 0))
        #expect(try RequestedInstant(parsing: "2000-03-01").date == Date(timeIntervalSince1970: 951_868_800))
    }

    @Test(arguments: [
        ("2025-02-30", "February 2025 has 28 days, not 30"),
        ("2023-02-29", "February 2023 has 28 days, not 29"),
        ("2025-13-01", "month 13 does not exist"),
        ("2025-01-31T25:00:00Z", "hour 25 does not exist (00-23)"),
        ("2025-01-31T12:61:00Z", "minute 61 does not exist (00-59)"),
        ("2025-01-31T12:00:61Z", "second 61 does not exist (00-59)"),
        ("2025-01-31T12:00:00+99:00", "offset 99:0 does not exist (at most 23:59)"),
        ("2025-01-31T12:00:00", "a time needs 'Z' or an offset such as +01:00 (a local time names no single instant)"),
        ("2025-01-31T12:00:00Zjunk", "unexpected text after the offset"),
        ("2025-01-31junk", "expected 'T' and a time after the date, or nothing"),
        ("2025-1-31", "expected a two-digit month"),
        ("31/01/2025", "expected a four-digit year"),
        ("", "expected a four-digit year"),
        ("0000-01-01", "year 0000 is outside 0001-9999"),
    ])
    func everyOtherInstantIsRefusedWithItsReason(text: String, reason: String) {
        #expect(throws: RequestedInstant.ParseError.self) { try RequestedInstant(parsing: text) }
        do { _ = try RequestedInstant(parsing: text) } catch { #expect(error.reason == reason, "\(text)") }
    }

    // MARK: a target held twice

    static func numbered(_ lines: [String]) throws -> [(line: Int?, record: AuditRecord)] {
        try ReportReader.numberedRecords(from: Array((lines.joined(separator: "\n") + "\n").utf8), name: "'base.jsonl'")
    }

    @Test func aTargetHeldTwiceInOneRunIsRefusedNamingTheFileTheTargetAndBothLines() throws {
        let good = CIFormatTests.record("a.test", verdict: "pass", results: [("ATS Default Connection", true)])
        let bad = CIFormatTests.record("a.test", verdict: "exception", results: [("ATS Default Connection", false)], key: "K")
        let other = CIFormatTests.record("b.test", verdict: "pass", results: [("ATS Default Connection", true)])
        // A record prepended (line 1) masks a regression if either one may stand for the target.
        let file = try Self.numbered([good, other, "", bad])
        #expect(throws: ReportInputError.self) { try RunRecords.refuseDuplicates([("'base.jsonl'", file)]) }
        do { try RunRecords.refuseDuplicates([("'base.jsonl'", file)]) } catch {
            #expect(error.message == "'base.jsonl' line 1 and line 4 both hold 'https://a.test/': a run audits each target once, so neither record can stand for it; remove one of the lines")
        }
        // Across two shard files, both are named.
        let shards = [("'s1'", try Self.numbered([good])), ("'s2'", try Self.numbered([other, bad]))]
        do { try RunRecords.refuseDuplicates(shards) } catch {
            #expect(error.message.hasPrefix("'s1' and 's2' line 1 and line 2 both hold 'https://a.test/'"), "\(error.message)")
        }
        try RunRecords.refuseDuplicates([("'ok'", try Self.numbered([good, other]))])
    }

    // MARK: one gate for audit --baseline and report --diff

    /// `audit --baseline` and `report --diff` answer one question (did the run get worse than
    /// its baseline?) with one function: for every comparison and bad-line count, under `new`
    /// and `absent`, their statuses are equal (they once were two near-twin functions).
    @Test func auditWithABaselineAndReportDiffGiveOneStatus() throws {
        let pass = [("ATS Default Connection", true)], fail = [("ATS Default Connection", false)]
        let base = try CIFormatTests.records([
            CIFormatTests.record("same.test", verdict: "pass", results: pass),
            CIFormatTests.record("gone.test", verdict: "pass", results: pass),
        ])
        let unchanged = try CIFormatTests.records([CIFormatTests.record("same.test", verdict: "pass", results: pass),
                                                   CIFormatTests.record("gone.test", verdict: "pass", results: pass)])
        let absent = try CIFormatTests.records([CIFormatTests.record("same.test", verdict: "pass", results: pass)])
        let worse = try CIFormatTests.records([CIFormatTests.record("same.test", verdict: "exception", results: fail, key: "K"),
                                               CIFormatTests.record("gone.test", verdict: "pass", results: pass)])
        let badLine = try CIFormatTests.records([CIFormatTests.record("same.test", verdict: "pass", results: pass),
                                                 CIFormatTests.record("gone.test", verdict: "pass", results: pass),
                                                 #"{"schemaVersion":2,"kind":"error","verdict":"error","input":"bad host","line":3,"message":"not a URL"}"#])
        var seen: Set<Int32> = []
        for new in [unchanged, absent, worse, badLine] {
            let sides = new.map(BaselineComparison.Side.init)
            let comparison = BaselineComparison(old: base.map(BaselineComparison.Side.init), new: sides)
            var tally = AuditTally()
            for record in new { tally.add(record.verdict, keys: []) }
            for failOn in [AuditFailOnChoice.new, .absent] {
                let audit = ReportGate.auditStatus(failOn, tally: tally, comparison: comparison)
                let diff = try ReportGate.diffStatus(comparison, new: sides, failOn: failOn)
                #expect(audit == diff, "\(failOn) over \(sides.map(\.name)): audit \(audit), --diff \(diff)")
                seen.insert(diff.rawValue)
            }
        }
        // The cases reach each answer: 0 (unchanged), 1 (worse, or absent under `absent`), 64 (a bad line).
        #expect(seen == [0, 1, 64], "\(seen)")
    }

    // MARK: diffs

    @Test func noExceptionHelpsAfterAnExceptionIsWorseAndSaysWhy() throws {
        let old = try CIFormatTests.records([CIFormatTests.record("a.test", verdict: "exception", results: [("ATS Default Connection", false)], key: "K")])
        let new = try CIFormatTests.records([CIFormatTests.record("a.test", verdict: "no-exception", results: [("ATS Default Connection", false)])])
        let comparison = BaselineComparison(old: old.map(BaselineComparison.Side.init), new: new.map(BaselineComparison.Side.init))
        #expect(comparison.entries.map(\.state) == [.regressed] && comparison.worse.count == 1)
        let text = comparison.text(baseline: "old.jsonl")
        #expect(text.contains("REGRESSED    https://a.test/: exception -> no exception helps\n    no exception helps now; it needed: K=false\n"), "\(text)")
        #expect(!text.contains("no longer needs"), "a graver verdict must not read as an improvement: \(text)")
        // The other way round it is better.
        let back = BaselineComparison(old: new.map(BaselineComparison.Side.init), new: old.map(BaselineComparison.Side.init))
        #expect(back.worse.isEmpty && back.entries.map(\.state) == [.changed])
    }

    @Test func everyDiffFormatSaysTheSameStatesAndLeadsWithWhatGotWorse() throws {
        let pass = [("ATS Default Connection", true), ("TLSv1.3", true)]
        let old = try CIFormatTests.records([
            CIFormatTests.record("worse.test", verdict: "pass", results: pass),
            CIFormatTests.record("fixed.test", verdict: "exception", results: [("ATS Default Connection", false), ("TLSv1.3", true)], key: "K"),
            CIFormatTests.record("gone.test", verdict: "pass", results: pass),
        ])
        let new = try CIFormatTests.records([
            CIFormatTests.record("fixed.test", verdict: "pass", results: pass),
            CIFormatTests.record("worse.test", verdict: "exception", results: [("ATS Default Connection", false), ("TLSv1.3", true)], key: "K"),
            CIFormatTests.record("added.test", verdict: "exception", results: [("ATS Default Connection", false), ("TLSv1.3", true)], key: "K"),
        ])
        let comparison = BaselineComparison(old: old.map(BaselineComparison.Side.init), new: new.map(BaselineComparison.Side.init))
        let markdown = comparison.markdown(baseline: "old.jsonl")
        #expect(markdown.hasPrefix("## ATS: 2 targets got worse\n"), "\(markdown)")
        let worse = try #require(markdown.range(of: "### Got worse")), fixed = try #require(markdown.range(of: "### Fixed"))
        #expect(worse.lowerBound < fixed.lowerBound)
        #expect(markdown.contains("- **REGRESSED** `https://worse.test/`: pass → exception\n  - now fails: `ATS Default Connection`\n"), "\(markdown)")
        #expect(markdown.contains("### Absent") && markdown.contains("`https://gone.test/`"))

        let json = try #require(try JSONSerialization.jsonObject(with: Data(comparison.json(baseline: "old.jsonl").utf8)) as? [String: Any])
        #expect(json["kind"] as? String == "comparison" && json["worse"] as? Int == 2)
        let states = (json["targets"] as? [[String: Any]])?.compactMap { $0["state"] as? String }
        // In input order (every record here is line 1: then by input text).
        #expect(states == ["new", "fixed", "regressed"], "\(String(describing: states))")
        #expect(json["absent"] as? [String] == ["https://gone.test/"])

        let xml = comparison.junit()
        #expect(xml.contains(#"<testsuites name="atsprobe" tests="4" failures="2" errors="0""#), "\(xml)")
        #expect(xml.contains(#"<failure message="regressed: pass -&gt; exception" type="baseline/regressed">"#), "\(xml)")
        #expect(xml.contains(#"<skipped message="in the baseline, not audited this time"/>"#))

        let log = comparison.sarif(input: "targets.txt", toolVersion: "1")
        #expect(log.runs[0].results.map(\.ruleId) == ["baseline/new", "baseline/regressed"])
        let regressed = log.runs[0].results[1]
        let place = regressed.locations[0].physicalLocation
        #expect(place.artifactLocation.uri == "targets.txt" && place.region?.startLine == 1 && place.region?.startColumn == nil)
        #expect(regressed.message.text.contains("https://worse.test/"))
    }

    // MARK: JUnit

    @Test func byDefaultOneTestcasePerTargetFailingOnlyWhenItsVerdictFails() throws {
        let records = try CIFormatTests.records([
            // TLS 1.2 only: nscurl's TLSv1.3 test fails, ATS's default connection passes.
            CIFormatTests.record("tls12.test", verdict: "pass", results: [("ATS Default Connection", true), ("TLSv1.3", false)]),
            CIFormatTests.record("needs.test", verdict: "exception", results: [("ATS Default Connection", false)], key: "NSExceptionRequiresForwardSecrecy"),
            #"{"schemaVersion":2,"kind":"error","input":"bad line","line":3,"message":"not a URL"}"#,
        ])
        let xml = Report(records).render(.junit, verbose: false)
        #expect(xml.contains(#"<testsuites name="atsprobe" tests="3" failures="1" errors="1""#), "\(xml)")
        #expect(xml.contains(#"<testcase name="https://tls12.test/" classname="atsprobe.https___tls12_test_" time="1.235">"# + "\n      <system-out>nscurl&#39;s tests:\nPASS ATS Default Connection\nFAIL TLSv1.3: the suite is not forward secret</system-out>"), "\(xml)")
        #expect(xml.contains(#"<failure message="needs an exception: NSExceptionRequiresForwardSecrecy=false" type="verdict/exception">"#), "\(xml)")
        #expect(xml.contains(#"<error message="not a URL" type="input/error">input line 3: not a URL</error>"#), "\(xml)")
        // --junit-cases tests keeps nscurl's view: the TLS 1.2 server fails a testcase there.
        let perTest = Report(records).render(.junit, verbose: false, junitCases: .tests)
        #expect(perTest.contains(#"failures="2""#), "\(perTest)")
    }

    // MARK: SARIF

    @Test func everyRuleIsDescribedAndEveryResultHasAStableFingerprint() throws {
        var report = Report(try CIFormatTests.records([
            CIFormatTests.record("a.test", verdict: "exception", results: [("ATS Default Connection", false)], key: "K"),
        ]))
        let first = ReportSARIF.audit(report)
        report = Report(try CIFormatTests.records([
            CIFormatTests.record("a.test", verdict: "exception", results: [("ATS Default Connection", false)], key: "K")
                .replacingOccurrences(of: #""wallMilliseconds":1234.5"#, with: #""wallMilliseconds":99"#),
        ]))
        let again = ReportSARIF.audit(report)
        let prints = first.runs[0].results.map(\.partialFingerprints)
        #expect(!prints.isEmpty && prints.allSatisfy { $0?[SARIFRules.fingerprintKey]?.count == 16 })
        #expect(prints == again.runs[0].results.map(\.partialFingerprints), "stable across runs")
        for rule in first.runs[0].tool.driver.rules {
            #expect(rule.fullDescription != nil && rule.help?.markdown != nil && (rule.helpUri == nil || rule.helpUri?.hasPrefix("https://") == true), "\(rule.id)")
            let severity = try #require(Double(rule.properties?.securitySeverity ?? ""))
            #expect(severity > 0 && severity <= 10 && rule.properties?.tags.contains("security") == true)
        }
        let encoded = String(decoding: try JSONEncoder().encode(first), as: UTF8.self)
        #expect(encoded.contains(#""security-severity":"5.0""#), "\(encoded)")
    }
}

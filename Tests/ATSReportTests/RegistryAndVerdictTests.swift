import ATSPolicy
import ATSReport
import Foundation
import Testing
import TLSFacts

/// Registries declared once (issue 32, item 6) and one verdict, one vocabulary (item 4): the
/// reports read nscurl's tests from `NSCurlMatrix` and never count them, and a target's verdict
/// is derived by one rule and named the same in every format.
@Suite struct RegistryAndVerdictTests {
    /// A document with the given tests (by title), default ATS failing, reachable, no exception.
    static func record(url: String, passing titles: [String], failing: [String] = [], line: Int) throws -> AuditRecord {
        let target = try Target(parsing: url)
        let tests = (titles.map { ($0, true) } + failing.map { ($0, false) }).map { title, passed in
            DiagnosticsJSON.TestJSON(section: "s", title: title, configuration: .default, verdict: Verdict(passed: passed), hops: [])
        }
        let document = DiagnosticsJSON(target: TargetReport(target), ruleSet: RuleSet.current.id, handshakes: 1, wallMilliseconds: 1,
                                       reachability: "answered", defaultPasses: false, tests: tests,
                                       suggestion: .init(.impossible(reason: "no"), ruleSet: .current),
                                       run: RunInfo(toolVersion: "t", openSSLVersion: "o", ruleSet: nil, trustStore: nil, ctLogList: nil,
                                                    startedAt: Date(timeIntervalSince1970: 0)),
                                       finishedAt: Date(timeIntervalSince1970: 0), missingIntermediate: nil)
        return .result(document, verdict: document.verdict, entry: .init(input: url, line: line))
    }

    @Test func theCSVColumnsStayTheContractAndComeFromTheRegistry() {
        // docs/reports.md: CSV columns are never renamed or reordered.
        #expect(ReportCSV.testColumns == [
            "default", "allow_all_loads", "tls13", "tls12", "tls11", "tls10", "no_pfs", "no_pfs_insecure_http",
            "tls13_no_pfs", "tls12_no_pfs", "tls11_no_pfs", "tls10_no_pfs",
            "tls13_no_pfs_insecure_http", "tls12_no_pfs_insecure_http", "tls11_no_pfs_insecure_http", "tls10_no_pfs_insecure_http",
        ])
        #expect(NSCurlMatrix.titles == NSCurlMatrix.tests(host: "example.com").map(\.title))
        #expect(NSCurlMatrix.columnNames.count == NSCurlMatrix.titles.count)
    }

    /// docs/reports.md's CSV table is the header `ReportCSV` writes: the fixed columns in order,
    /// the test columns from the matrix's first to its last, then the forecast's. A test added to
    /// the matrix without its place in the docs' contract fails here.
    @Test func theDocumentedCSVColumnsAreTheHeader() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let doc = try String(contentsOf: root.appendingPathComponent("docs/reports.md"), encoding: .utf8)
        let section = try #require(doc.range(of: "## CSV"))
        let table = doc[section.upperBound...].split(separator: "\n").drop { !$0.hasPrefix("| column") }.prefix { $0.hasPrefix("|") }
        // Each row's first cell names its columns in backquotes.
        let named = table.dropFirst(2).flatMap { row -> [String] in
            let cell = row.split(separator: "|", omittingEmptySubsequences: true).first.map(String.init) ?? ""
            return cell.split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
        }
        let tests = try #require(ReportCSV.testColumns.first).description, last = try #require(ReportCSV.testColumns.last)
        // The docs name the test columns as a range: `first` ... `last`.
        let expected = ReportCSV.columns + [tests, last] + ReportForecast.csvColumns
        #expect(named == expected, "docs/reports.md's CSV table names \(named)")
    }

    /// The old reports took the columns from the first record with exactly 16 tests: a record
    /// with another count (one written before a test was added, or after) emptied the matrix.
    @Test func aRecordWithoutEveryTestStillHasItsRowByTitle() throws {
        let titles = NSCurlMatrix.titles
        let partial = try Self.record(url: "https://a.test/", passing: Array(titles.dropLast()), line: 1)
        let report = Report([partial])
        #expect(report.testTitles == titles)
        let row = try #require(report.originRows.first)
        #expect(row.cells == Array(repeating: true, count: titles.count - 1) + [nil])
        let text = report.render(.text, verbose: false)
        #expect(text.contains("nscurl's \(titles.count) tests by origin and result"), "\(text)")
        #expect(text.contains(String(repeating: ".", count: titles.count - 1) + "-"), "\(text)")
        let csv = report.render(.csv, verbose: false).split(whereSeparator: \.isNewline)
        #expect(csv.count == 2)
        #expect(csv.last?.hasSuffix(String(repeating: ",PASS", count: titles.count - 1) + ",") == true, "\(csv)")
    }

    @Test func oneDerivation() {
        #expect(AuditVerdict(defaultPasses: true, reachable: false, exceptionHelps: false) == .pass)
        #expect(AuditVerdict(defaultPasses: false, reachable: false, exceptionHelps: true) == .unreachable)
        #expect(AuditVerdict(defaultPasses: false, reachable: true, exceptionHelps: true) == .exception)
        #expect(AuditVerdict(defaultPasses: false, reachable: true, exceptionHelps: false) == .noException)
    }

    /// Every format names a verdict by its JSON value (`no-exception`, `error`), never in words of
    /// its own ("no exception helps", "bad input", "exception needed", "timed out").
    @Test func everyFormatNamesTheVerdictAlike() throws {
        let record = try Self.record(url: "https://b.test/", passing: [], failing: NSCurlMatrix.titles, line: 1)
        #expect(record.verdict == .noException)
        let report = Report([record, .error(message: "not a target", entry: .init(input: "::", line: 2), run: nil, finishedAt: nil)])
        for verdict in AuditVerdict.allCases { #expect(ReportHTML.label(verdict) == verdict.rawValue) }
        let html = report.render(.html, verbose: false), markdown = report.render(.markdown, verbose: false)
        let csv = report.render(.csv, verbose: false), text = report.render(.text, verbose: false)
        for output in [html, markdown, csv] {
            #expect(output.contains("no-exception"))
            #expect(output.contains("error"))
            for words in ["exception needed", "bad input", "timed out"] { #expect(!output.contains(words), "\(words) in \(output)") }
        }
        #expect(!html.contains(">no exception helps<") && !markdown.contains("| no exception helps |"))
        #expect(text.contains("NO-EXCEPTION"))
    }
}

import Foundation
import Testing
import TestSupport

/// `report`'s text (issue 25, items 3 and 4): the targets in input order whatever order the file
/// holds them in, the matrix by origin after them, and a summary that names `report`.
@Suite struct TextReportTests {
    /// Golden/ci-records.jsonl holds an audit's records in finishing order (input lines 6, 1, 3,
    /// 5, 7, 2; two paths of one origin): the text is compared whole with Golden/ci-text.txt.
    @Test func reportTextOfFixedRecordsIsInInputOrderAndMatchesItsGolden() async throws {
        let records = PlistFormatsTests.golden.appendingPathComponent("ci-records.jsonl").path
        let result = try await BinaryRunner.run(["report", records], timeout: 60)
        #expect(result.status == 64, "a bad input line: \(result.stderr)")
        try PlistFormatsTests.compareGolden(result.stdout, "ci-text.txt")
        let firstWords = result.stdout.split(separator: "\n").prefix(6).map { $0.split(separator: " ")[1] }
        #expect(firstWords == ["https://127.0.0.1:47795/a:", "https://127.0.0.1:47795/b:", "https://127.0.0.1:60633/:",
                               "https://127.0.0.1:56801/:", "127.0.0.1:99999", "https://127.0.0.1:58521/:"], "\(result.stdout)")
        #expect(result.stdout.contains("\nPASS         ................  https://127.0.0.1:47795 (2 URLs)\n"
                                       + String(repeating: " ", count: 33) + "/a, /b\n"), "\(result.stdout)")
        #expect(result.stderr.hasPrefix("atsprobe report: 6 targets: 2 pass, 1 exception, 1 no-exception, 1 unreachable, 1 error\n"),
                "\(result.stderr)")
        let quiet = try await BinaryRunner.run(["report", records, "--quiet"], timeout: 60)
        // --quiet drops the summary, never the one-line error of a 64 (the records hold a bad line; issue 42).
        #expect(quiet.stdout == result.stdout && quiet.stderr.hasPrefix("atsprobe: exit 64: the run had 1 bad input line") && quiet.stderr.split(separator: "\n").count == 1, "\(quiet.stderr)")
    }
}

import Foundation
import Testing

/// No code reads nscurl's tests by their place in the list (issue 39, item 5): the default
/// connection, Allow All Loads and each entry are found by their role (`DiagnosticRole`), so a
/// test added or moved in `NSCurlMatrix` changes no reader. This reads Sources/ for a list of
/// tests, their outcomes, verdicts, titles or columns taken at a literal place (`tests[0]`,
/// `tests.first?`, `.prefix(2)`, `.dropFirst()`, `.last`) or at another list's index
/// (`report.tests[index - 1]`, `$0.tests[row]`).
@Suite struct NoPositionalTestReadsTests {
    /// The names a list of tests goes by in Sources/.
    static let lists = #"(tests|outcomes|shownOutcomes|verdicts|titles|testTitles|columnNames|testColumns|roles)"#

    /// Simple word boundaries: by Unicode's, `document.tests` is one word and `\btests` misses it.
    static var pattern: Regex<AnyRegexOutput> {
        try! Regex(#"\b"# + lists + #"\s*(\[\s*\d|\.(first|last)\b(?!\s*(\{|\(where))|\.(prefix|suffix)\(\s*\d|\.drop(First|Last)\b)"#
                   + #"|\.tests\s*\["#).wordBoundaryKind(.simple)
    }

    @Test func noCodeReadsATestByItsPlace() throws {
        let (checked, found) = try SourceScan.lines(matching: Self.pattern)
        #expect(checked > 100, "Sources/ not found at \(SourceScan.sources.path)")
        #expect(found.isEmpty, "a test read by its place, not its role:\n\(found.joined(separator: "\n"))")
    }

    /// The pattern finds each way the seven old readers took a test (so the test can fail), and
    /// leaves a search by role alone.
    @Test func thePatternFindsAPlace() {
        for old in [
            "    public var defaultPasses: Bool { tests.first?.verdict.passed ?? false }",
            "        let failures = tests.prefix(2).flatMap(\\.verdict.reasons)",
            "        guard defaultPasses == (tests.first?.verdict.passed ?? false) else {",
            "            default: return document.tests.first?.verdict.reasons.first?.message",
            "                passed: matrix.reports.map { row < $0.tests.count ? $0.tests[row].verdict.passed : nil })",
            "        let verdict = AuditVerdict(defaultPasses: verdicts.first?.passed ?? false, reachability: r)",
            "            out += self.test(test, previous: index > 0 ? report.tests[index - 1] : nil)",
            "        #expect(tests[0].configuration == .default)",
            "        for title in titles.dropFirst() {",
        ] {
            #expect(old.contains(Self.pattern), "\(old)")
        }
        for fine in [
            "        results.first { $0.0.role == role }?.1",
            "    package func test(_ role: DiagnosticRole) -> TestOutcome? { first { $0.role == role } }",
            "        let shown = Array(all.prefix(shownCount))",
            "        let verdicts = tests.indices.map { replay($0) }",
            "        if let verdict = results.first(where: { $0.0.role == underATS })?.1 {",
            "        rows = (matrix.reports.first?.tests ?? []).map { test in",
        ] {
            #expect(!fine.contains(Self.pattern), "\(fine)")
        }
    }
}

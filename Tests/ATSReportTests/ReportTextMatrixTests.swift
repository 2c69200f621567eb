import ATSPolicy
import ATSReport
import Foundation
import Testing

/// The text report's matrix by origin (issue 25, item 3): one row per origin and result, the
/// URLs under it, the 16 tests as columns with a legend, and every name escaped.
@Suite struct ReportTextMatrixTests {
    static let titles = NSCurlMatrix.titles

    /// A result record at input line `line` for `url`, its 16 tests passing where `cells` has a ".".
    static func record(line: Int, url: String, host: String, port: Int, verdict: String, cells: String) -> String {
        let suggestion = Self.suggestion(verdict, host: host)
        let tests = zip(titles, cells).map { title, cell in
            #"{"section":"S","title":"\#(title)","dictionary":{},"result":"\#(cell == "." ? "PASS" : "FAIL")","#
                + #""verdict":{"passed":\#(cell == "."),"reasons":[]},"hops":[]}"#
        }.joined(separator: ",")
        return #"{"schemaVersion":2,"kind":"result","verdict":"\#(verdict)","input":"\#(url)","line":\#(line),"#
            + #""target":{"url":"\#(url)","host":"\#(host)","port":\#(port)},"ruleSet":"ios26","handshakes":1,"#
            + #""wallMilliseconds":1.5,"reachability":"answered","defaultPasses":\#(verdict == "pass"),"tests":[\#(tests)],"#
            + #""suggestion":\#(suggestion)}"#
    }

    /// What makes `verdict` the record's own (the reader refuses a verdict its tests and advice contradict).
    static func suggestion(_ verdict: String, host: String) -> String {
        verdict == "exception" ? #"{"kind":"exception","domain":"\#(host)","exception":{"NSExceptionAllowsInsecureHTTPLoads":true}}"#
                               : #"{"kind":"none"}"#
    }

    static let allPass = String(repeating: ".", count: 16)

    /// Three paths on one origin (two alike, one that differs), a second origin, and a bad line.
    static let lines = [
        record(line: 4, url: "https://shop.test/api", host: "shop.test", port: 443, verdict: "exception", cells: "F" + String(repeating: ".", count: 15)),
        record(line: 1, url: "https://shop.test/", host: "shop.test", port: 443, verdict: "pass", cells: allPass),
        record(line: 3, url: "https://old.test:8443/", host: "old.test", port: 8443, verdict: "exception", cells: "FF.FFFFFFFFFFFFF"),
        #"{"schemaVersion":2,"kind":"error","verdict":"error","input":"x:99999","line":5,"message":"bad port"}"#,
        record(line: 2, url: "https://shop.test/cart", host: "shop.test", port: 443, verdict: "pass", cells: allPass),
    ]

    static let legend = """
        Tests: 1 ATS Default Connection; 2 Allow All Loads; 3 TLSv1.3; 4 TLSv1.2;
               5 TLSv1.1; 6 TLSv1.0; 7 Disabling Perfect Forward Secrecy;
               8 Disabling Perfect Forward Secrecy and Allowing Insecure HTTP;
               9 TLSv1.3 with PFS disabled; 10 TLSv1.2 with PFS disabled;
               11 TLSv1.1 with PFS disabled; 12 TLSv1.0 with PFS disabled;
               13 TLSv1.3 with PFS disabled and insecure HTTP allowed;
               14 TLSv1.2 with PFS disabled and insecure HTTP allowed;
               15 TLSv1.1 with PFS disabled and insecure HTTP allowed;
               16 TLSv1.0 with PFS disabled and insecure HTTP allowed.

        """

    @Test func oneRowPerOriginAndResultWithItsURLsUnderIt() throws {
        let report = Report(try CIFormatTests.records(Self.lines))
        let expected = """

            nscurl's 16 tests by origin and result (. PASS, F FAIL, - not run):
                                  1111111
            Verdict      1234567890123456  Origin
            PASS         ................  https://shop.test (2 URLs)
                                             /, /cart
            EXCEPTION    F...............  https://shop.test/api
            EXCEPTION    FF.FFFFFFFFFFFFF  https://old.test:8443/
            ERROR        ----------------  x:99999

            """ + Self.legend
        #expect(ReportTextMatrix(report).render() == expected)
        // `report`'s text: the lines in input order (not the file's), then the matrix.
        let text = ReportText.render(report, verbose: false, palette: Palette(enabled: false))
        let names = text.split(separator: "\n").prefix(5).map { $0.split(separator: " ", omittingEmptySubsequences: true)[1] }
        #expect(names == ["https://shop.test/:", "https://shop.test/cart:", "https://old.test:8443/:", "https://shop.test/api:", "x:99999"], "\(text)")
        #expect(text.hasSuffix(expected))
        #expect(report.render(.text, verbose: false) == text)
    }

    /// An audit adds targets as they finish; its matrix equals the report's of the same records.
    @Test func targetsAddedInFinishingOrderDrawTheReportsMatrix() throws {
        let records = try CIFormatTests.records(Self.lines)
        let whole = ReportTextMatrix(Report(records)).render()
        for order in [records, records.reversed(), [records[2], records[4], records[0], records[3], records[1]]] {
            var live = ReportTextMatrix()
            for record in order { live.add(record) }
            #expect(live.render() == whole)
        }
    }

    @Test func hostileHostsAndPathsStayEscapedOnTheirRow() throws {
        // JSON escapes: ESC, a newline, U+202E (right-to-left override), U+009B (CSI) and U+2066.
        let hostile = [
            Self.record(line: 1, url: #"https://evil.test/a\u001B[2J\n"#, host: "evil.test", port: 443, verdict: "pass", cells: Self.allPass),
            Self.record(line: 2, url: #"https://evil.test/\u202Egpj.exe"#, host: "evil.test", port: 443, verdict: "pass", cells: Self.allPass),
            Self.record(line: 3, url: #"https://b\u009Bx\u2066.test/"#, host: #"b\u009Bx\u2066.test"#, port: 443, verdict: "exception",
                        cells: "FF.FFFFFFFFFFFFF"),
        ]
        let matrix = ReportTextMatrix(Report(try CIFormatTests.records(hostile))).render()
        #expect(!matrix.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x9B || $0.value == 0x202E || $0.value == 0x2066 },
                "no raw control or bidi character: \(matrix.debugDescription)")
        #expect(matrix.contains("PASS         ................  https://evil.test (2 URLs)\n"), "\(matrix)")
        #expect(matrix.contains(#"                                 /a\x1B[2J\x0A, /\u{202E}gpj.exe"# + "\n"), "\(matrix)")
        #expect(matrix.contains(#"EXCEPTION    FF.FFFFFFFFFFFFF  https://b\u{9B}x\u{2066}.test/"# + "\n"), "\(matrix)")
        // Every row is one line: the blank line, 3 header lines, 2 + 1 rows and the legend (9 lines).
        #expect(matrix.split(separator: "\n", omittingEmptySubsequences: false).count == 1 + 3 + 3 + 9 + 1)
    }

    @Test func manyPathsWrapWithinEightyColumns() throws {
        let lines = (1...40).map { Self.record(line: $0, url: "https://api.test/v1/items/\($0)", host: "api.test", port: 443,
                                               verdict: "pass", cells: Self.allPass) }
            + [Self.record(line: 41, url: "https://api.test/" + String(repeating: "long", count: 20), host: "api.test", port: 443,
                           verdict: "pass", cells: Self.allPass)]
        let matrix = ReportTextMatrix(Report(try CIFormatTests.records(lines))).render()
        let rows = matrix.split(separator: "\n")
        #expect(rows.contains("PASS         ................  https://api.test (41 URLs)"), "\(matrix)")
        let pathLines = rows.filter { $0.hasPrefix(String(repeating: " ", count: 33)) && $0.contains("/") }
        #expect(pathLines.count > 3, "wrapped: \(matrix)")
        // Only the one path longer than a line is longer than 80 columns, on a line of its own.
        #expect(rows.filter { $0.count > 80 } == [Substring(String(repeating: " ", count: 33) + "/" + String(repeating: "long", count: 20))])
        let listed = pathLines.flatMap { $0.split(separator: " ") }.map { String($0.hasSuffix(",") ? $0.dropLast() : $0) }
        #expect(listed == (1...40).map { "/v1/items/\($0)" } + ["/" + String(repeating: "long", count: 20)])
    }

    @Test func noMatrixWhenNoTargetRanTheTests() throws {
        let report = Report(try CIFormatTests.records([#"{"schemaVersion":2,"kind":"error","verdict":"error","input":"x","line":1,"message":"m"}"#]))
        #expect(ReportTextMatrix(report).render().isEmpty)
        #expect(report.render(.text, verbose: false) == "ERROR        x (line 1: m)\n")
    }
}

import ATSPolicy
import ATSReport
import Foundation
import Testing

/// Readers find nscurl's tests by their role, never by their place (issue 39, item 5): a record
/// whose tests come in another order (the default connection last) reads as the same record.
@Suite struct TestRoleTests {
    /// A record of https://x.test/ whose tests come in `titles`' order: the default connection
    /// fails with a reason of its own, every other test passes, PFS off is the exception.
    static func line(_ titles: [String]) -> String {
        let tests = titles.map { title in
            let isDefault = NSCurlMatrix.role(titled: title) == .defaultConnection
            let reasons = isDefault ? #"[{"kind":"notForwardSecret","layer":"ats","message":"the default connection's own reason"}]"# : "[]"
            return #"{"section":"S","title":"\#(title)","dictionary":{},"result":"\#(isDefault ? "FAIL" : "PASS")","#
                + #""verdict":{"passed":\#(!isDefault),"reasons":\#(reasons)},"hops":[]}"#
        }.joined(separator: ",")
        return #"{"schemaVersion":2,"kind":"result","verdict":"exception","input":"https://x.test/","line":1,"#
            + #""target":{"url":"https://x.test/","host":"x.test","port":443},"ruleSet":"ios26","handshakes":1,"#
            + #""wallMilliseconds":1.5,"reachability":"answered","defaultPasses":false,"tests":[\#(tests)],"#
            + #""suggestion":{"kind":"exception","domain":"x.test","exception":{"NSExceptionRequiresForwardSecrecy":false}}}"#
    }

    /// Before, the reader took the first test for the default connection: the reversed record was
    /// refused ("disagrees with the first test") and its reason was another test's.
    @Test func aRecordInAnotherOrderReadsAlike() throws {
        let ordered = try CIFormatTests.records([Self.line(NSCurlMatrix.titles)])
        let reversed = try CIFormatTests.records([Self.line(NSCurlMatrix.titles.reversed())])
        #expect(reversed.first?.reason == "the default connection's own reason")
        #expect(reversed.first?.reason == ordered.first?.reason)
        for format in [OutputFormat.csv, .markdown, .html, .sarif, .text] {
            #expect(Report(reversed).render(format, verbose: false) == Report(ordered).render(format, verbose: false), "\(format)")
        }
    }

    /// A document whose default-connection flag contradicts that test (wherever it stands) is refused.
    @Test func theDefaultFlagIsCheckedAgainstTheDefaultConnectionsTest() {
        let contradicting = Self.line(NSCurlMatrix.titles.reversed()).replacingOccurrences(of: #""defaultPasses":false"#,
                                                                                            with: #""defaultPasses":true"#)
        #expect(throws: (any Error).self) { try CIFormatTests.records([contradicting]) }
    }
}

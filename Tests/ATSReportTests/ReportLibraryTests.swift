import ATSReport
import Foundation
import Testing

/// ATSReport used as a library: records decoded, merged and rendered without the executable.
@Suite struct ReportLibraryTests {
    static func record(line: Int, input: String, key: String = "NSExceptionMinimumTLSVersion") -> String {
        #"{"schemaVersion":2,"kind":"result","verdict":"exception","input":"\#(input)","line":\#(line),"#
            + #""target":{"url":"https://\#(input)/","host":"\#(input)","port":443},"ruleSet":"ios26","handshakes":1,"#
            + #""wallMilliseconds":1,"reachability":"answered","defaultPasses":false,"tests":[],"#
            + #""suggestion":{"kind":"exception","domain":"\#(input)","exception":{\#(key):"TLSv1.0"}}}"#
    }

    static func records(_ lines: [String], name: String = "'f'") throws -> [AuditRecord] {
        try ReportReader.records(from: Array((lines.joined(separator: "\n") + "\n").utf8), name: name)
    }

    @Test func aRecordWrittenAgainReadsBackTheSame() throws {
        let read = try Self.records([Self.record(line: 3, input: "a.test", key: #""NSExceptionMinimumTLSVersion""#)])
        let data = try JSONEncoder.atsprobe(pretty: false).encode(read[0])
        let again = try Self.records([String(decoding: data, as: UTF8.self)])
        #expect(Report(again).render(.csv, verbose: false) == Report(read).render(.csv, verbose: false))
        #expect(again[0].exceptionKeys.map { "\($0.key)=\($0.value)" } == ["NSExceptionMinimumTLSVersion=TLSv1.0"])
        #expect(again[0].line == 3 && again[0].verdict == .exception)
    }

    @Test func shardsMergeInInputOrderAndATargetInTwoIsRefused() throws {
        let one = try Self.records([Self.record(line: 9, input: "c.test", key: #""K""#), Self.record(line: 1, input: "a.test", key: #""K""#)])
        let two = try Self.records([Self.record(line: 4, input: "b.test", key: #""K""#)])
        let merged = try ReportReader.merge([("'one'", one), ("'two'", two)])
        #expect(merged.map(\.line) == [1, 4, 9])
        #expect(throws: ReportInputError.self) { try ReportReader.merge([("'one'", one), ("'again'", one)]) }
        let error = #expect(throws: ReportInputError.self) { try ReportReader.merge([("'one'", one), ("'two'", two), ("'again'", two)]) }
        #expect(error?.code == .duplicateTarget)
        #expect(error?.message.hasPrefix("'two' and 'again' both hold 'https://b.test/' (input line 4)") == true, "\(error?.message ?? "")")
    }

    @Test func everySinkKeepsHostileTextInItsPlace() {
        let hostile = "K\n```\n<b>|`x`\u{1B}[31m\u{202E}"
        #expect(!ReportEscaping.text(hostile).contains("\n") && !ReportEscaping.text(hostile).contains("\u{1B}"))
        // Untrusted text is always a code span (issue 42), its fence longer than any backtick run inside.
        let code = ReportEscaping.markdown(hostile)
        #expect(code.hasPrefix("````") && code.hasSuffix("````") && !code.hasPrefix("`````"), "three backticks inside: a fence of four: \(code)")
        #expect(!code.contains("\n") && code.contains("<b>|"))
        #expect(ReportEscaping.markdownCell(hostile).contains("<b>\\|"), "a pipe in a table cell is \\|")
        #expect(ReportEscaping.markdown("NSExceptionMinimumTLSVersion") == "`NSExceptionMinimumTLSVersion`")
        let fence = ReportEscaping.markdownFence("a\n```\nb\u{202E}")
        #expect(!fence.split(separator: "\n").contains { $0.hasPrefix("```") })
        #expect(fence.split(separator: "\n").count == 3, "line breaks kept")
        #expect(!ReportEscaping.html(hostile).contains("<b>"))
    }

    @Test func anExceptionsIntegersAndRealsKeepTheirPlistTypes() {
        let xml = ExceptionFragment.xml(domain: "a.test", .dictionary(["N": .integer(2), "R": .real(2), "S": .string("x<y")]))
        #expect(xml.contains("<key>N</key>\n\t<integer>2</integer>"))
        #expect(xml.contains("<key>R</key>\n\t<real>2</real>"), "a whole real stays a real: \(xml)")
        #expect(xml.contains("<string>x&lt;y</string>"))
        #expect(xml.hasPrefix("<key>a.test</key>\n<dict>\n"))
    }
}

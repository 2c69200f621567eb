import Foundation
import Testing
import TestSupport

/// `atsprobe report` over records it did not write (issue 24: "any JSON is a record", "huge
/// numbers in records", "keys from records unescaped"): bad input is exit 64 with one line
/// naming the line, never a trap; every key and value is escaped in text and Markdown.
@Suite struct ReportRecordInputTests {
    static let run = #"{"tool":"atsprobe","toolVersion":"0.1.0","openSSLVersion":"OpenSSL 3","ruleSet":"ios26","startedAt":"2026-01-01T00:00:00Z"}"#

    /// A result record whose exception holds `exception` (raw JSON members) and whose server fix removes `fixKey` (a JSON string).
    static func exceptionRecord(line: Int, exception: String, fixKey: String = #""NSExceptionMinimumTLSVersion""#) -> String {
        #"{"schemaVersion":2,"kind":"result","verdict":"exception","input":"h\#(line).test","line":\#(line),"#
            + #""target":{"url":"https://h\#(line).test/","host":"h\#(line).test","port":443},"ruleSet":"ios26","handshakes":1,"#
            + #""wallMilliseconds":1,"reachability":"answered","defaultPasses":false,"tests":[],"run":\#(run),"finishedAt":"2026-01-01T00:00:01Z","#
            + #""suggestion":{"kind":"exception","domain":"h\#(line).test","exception":{\#(exception)},"#
            + #""fixes":[{"keys":[\#(fixKey)],"change":"enable TLS 1.2","nginx":["ssl_protocols TLSv1.2;"],"apache":["SSLProtocol +TLSv1.2"],"haproxy":[]}]}}"#
    }

    static func write(_ text: String) throws -> (path: String, directory: TemporaryDirectory) {
        let directory = try TemporaryDirectory()
        return (try directory.write("records.jsonl", text), directory)
    }

    @Test(arguments: ["{}", #"{"hello":"world","schemaVersion":99}"#, #"{"schemaVersion":2,"kind":"result"}"#, "[1]"])
    func jsonThatIsNotARecordOfAKnownSchemaIsBadInput(line: String) async throws {
        let good = #"{"schemaVersion":2,"kind":"error","verdict":"error","input":"x","line":1,"message":"m","run":\#(Self.run)}"#
        let (path, directory) = try Self.write(good + "\n" + line + "\n")
        defer { directory.remove() }
        for format in ["text", "markdown", "html", "csv"] {
            let result = try await BinaryRunner.run(["report", path, "--format", format], timeout: 30)
            #expect(result.status == 64, "\(line) as \(format): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("line 2: not an atsprobe record"), "stderr: \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }

    @Test func hugeNumbersInRecordsAreBadInputNeverATrap() async throws {
        let timeout = #"{"schemaVersion":2,"kind":"timeout","verdict":"timeout","input":"t.test","line":1,"target":{"url":"https://t.test/","host":"t.test","port":443},"deadlineSeconds":1e300,"run":\#(Self.run)}"#
        let exception = Self.exceptionRecord(line: 1, exception: #""NSExceptionMinimumTLSVersion":1e300"#)
        let port = #"{"schemaVersion":2,"kind":"timeout","verdict":"timeout","input":"t.test","line":1,"target":{"url":"https://t.test/","host":"t.test","port":1e300},"deadlineSeconds":5,"run":\#(Self.run)}"#
        for (record, field) in [(timeout, "deadlineSeconds"), (exception, "exception"), (port, "a number out of range")] {
            let (path, directory) = try Self.write(record + "\n")
            defer { directory.remove() }
            for format in ["text", "markdown", "html", "csv"] {
                let result = try await BinaryRunner.run(["report", path, "--format", format], timeout: 30)
                #expect(result.status == 64, "\(field) as \(format): exit \(result.status), stderr \(result.stderr)")
                #expect(result.stderr.contains("line 1: not an atsprobe record") && result.stderr.contains(field), "stderr: \(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1)
            }
        }
    }

    /// A key holding a newline and a code fence, ESC, BEL, C1 and a bidi override, as an exception
    /// key and as a server fix's key: Markdown's fences stay paired, nothing after it renders live,
    /// and no raw control or bidi character reaches text or Markdown.
    @Test func keysFromRecordsStayInsideTheirSpansAndFences() async throws {
        let hostile = #""K\n```\n<img src=x onerror=alert(1)>\n# live \u001B[31m\u0007\u0085\u202E""#
        let record = Self.exceptionRecord(line: 1, exception: hostile + ":true", fixKey: hostile)
        let (path, directory) = try Self.write(record + "\n")
        defer { directory.remove() }
        let markdown = try await BinaryRunner.run(["report", path, "--format", "markdown", "-q"], timeout: 30)
        #expect(markdown.status == 1, "stderr: \(markdown.stderr)")
        let lines = markdown.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let fences = lines.filter { $0.hasPrefix("```") }
        #expect(fences.count == 4, "two blocks, each opened and closed once: \(fences)")
        // Outside the fences the key sits in a code span (issue 42: a fence longer than any
        // backtick run inside); inside them it is XML-escaped. Nothing outside both is `<img`.
        var inFence = false
        let live = lines.filter { line in
            if line.hasPrefix("```") { inFence.toggle(); return false }
            return !inFence && Self.outsideCodeSpans(String(line)).contains("<img")
        }
        #expect(live.isEmpty, "no live HTML: \(live)")
        #expect(!lines.contains { $0.hasPrefix("# live") }, "no live heading")
        let text = try await BinaryRunner.run(["report", path, "-q"], timeout: 30)
        #expect(text.status == 1)
        #expect(text.stdout.split(separator: "\n").count == 1, "one line per target: \(text.stdout)")
        for output in [markdown.stdout, text.stdout] {
            let raw = output.unicodeScalars.filter { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) || $0.value == 0x202E }
            #expect(raw.isEmpty, "raw control or bidi characters: \(raw.map(\.value))")
        }
        let summary = try await BinaryRunner.run(["report", path, "--format", "csv"], timeout: 30)
        #expect(!summary.stderr.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "the stderr summary too")
    }

    /// A line without its code spans (CommonMark 6.1: N backticks open one, the next run of exactly N closes it).
    static func outsideCodeSpans(_ line: String) -> String {
        let characters = Array(line)
        var out = "", index = 0
        while index < characters.count {
            guard characters[index] == "`" else { out.append(characters[index]); index += 1; continue }
            var run = 0
            while index + run < characters.count, characters[index + run] == "`" { run += 1 }
            var search = index + run
            var end: Int?
            while search < characters.count {
                guard characters[search] == "`" else { search += 1; continue }
                var other = 0
                while search + other < characters.count, characters[search + other] == "`" { other += 1 }
                if other == run { end = search + other; break }
                search += other
            }
            guard let end else { out += String(characters[index...]); break }
            index = end
        }
        return out
    }
}

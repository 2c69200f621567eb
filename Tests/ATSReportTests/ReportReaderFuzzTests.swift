import ATSPolicy
import ATSReport
import Foundation
import Testing
import TestSupport
import TextSupport
import TLSFacts

/// `atsprobe report`'s reader fuzzed (docs/robustness.md, "Fuzzing"; issue 24 item 6): records
/// as audit and diagnose write them, mutated byte by byte or with one JSON string replaced by
/// hostile text, go through `ReportReader.records`
/// and, when read, through every format. The reader either refuses them with one line holding
/// no raw control, or every format keeps its promises: text is one line per target (then the matrix), Markdown's
/// fences pair and no record text opens HTML or leaves its line, HTML holds only our own tags,
/// CSV has every row's 25 cells with no formula, no format carries a raw control or bidi
/// character; and the records written again read back to the same report (a live report equals
/// `atsprobe report` of its file).
@Suite struct ReportReaderFuzzTests {
    /// 600 inputs in the suite (each is read and rendered five times, then written and read
    /// again: about 1 ms apiece); scripts/fuzz sets other bounds.
    static let run = FuzzRun("report records", defaultIterations: 600, environment: ProcessInfo.processInfo.environment)

    static let runInfo = #"{"tool":"atsprobe","toolVersion":"0.1.0","openSSLVersion":"OpenSSL 3.0.13","ruleSet":"ios26","startedAt":"2026-01-01T00:00:00Z"}"#

    /// One hop of a real run (`diagnose` of an `openssl s_server` on loopback), its chain cut to
    /// the leaf and its offer to a few entries.
    /// A matrix row: the verdict, then one cell per nscurl test (`NSCurlMatrix.count`), then the origin.
    static var matrixRow: Regex<AnyRegexOutput> { try! Regex("[A-Z-]+ +[.F-]{\(NSCurlMatrix.count)}  .*") }

    static let hop = #"{"observation":{"chain":[{"dnsNames":[],"embeddedSCTs":[],"ipAddresses":["127.0.0.1"],"isCA":true,"isSelfIssued":true,"issuer":"CN=127.0.0.1","notAfter":"2026-12-27T05:37:15Z","notBefore":"2026-11-27T05:37:15Z","publicKey":{"algorithm":"RSA","bits":2048},"serialNumber":"1DEEA4999A5DC39B570C9922A11876C2FABDF876","sha256Fingerprint":"0A:BA:C2:C5:5F:59:9E:AD:78:34:81:4A:7F:A1:AA:1C:73:8C:CA:DF:07:55:F5:6F:3A:D5:5C:04:47:21:A5:2D","signatureAlgorithm":"sha256WithRSAEncryption","signatureHash":"sha256","spkiSHA256Base64":"hHm7dha13U67pREzuWE7xg6uixsh/yaK435txSNCdVE=","subject":"CN=127.0.0.1"}],"cipherSuite":"TLS_RSA_WITH_AES_128_CBC_SHA","connectMilliseconds":2.3657330000332877,"deliveredSCTs":[],"handshakeMilliseconds":34.85431399985828,"http":{"reason":"ok","statusCode":200},"openSSLCipherName":"AES128-SHA","peerAddress":"192.0.2.1","port":443,"protocolVersion":"TLSv1.2","trust":{"anchor":"user","evaluatedAt":"2026-11-27T05:37:16Z","path":[],"problems":[],"store":"Apple's root store security_certificates-55349.0.11 (156 roots)"}},"offer":{"alpn":["h2","http/1.1"],"groups":["X25519MLKEM768","x25519"],"maxVersion":"TLSv1.3","minVersion":"TLSv1.2","signatureSchemes":["ecdsa_secp256r1_sha256","rsa_pss_rsae_sha256"],"suites":["TLS_AES_128_GCM_SHA256","TLS_AES_256_GCM_SHA384","TLS_CHACHA20_POLY1305_SHA256"]},"url":"https://a.test/"}"#

    /// An audit result line: an exception with a server fix, a failing test (its error and reason)
    /// and a passing one, with a hop each.
    static let result = #"{"schemaVersion":2,"kind":"result","verdict":"exception","input":"a.test","line":1,"#
        + #""target":{"url":"https://a.test/","host":"a.test","port":443},"ruleSet":"ios26","handshakes":2,"wallMilliseconds":12.5,"#
        + #""reachability":"answered","defaultPasses":false,"run":\#(runInfo),"finishedAt":"2026-01-01T00:00:01Z","#
        + #""tests":[{"section":"Default ATS Secure Connection","title":"ATS Default Connection","dictionary":{},"result":"FAIL","#
        + #""verdict":{"passed":false,"error":{"domain":"kCFErrorDomainCFNetwork","code":-1200,"streamErrorCode":-9836,"#
        + #""localizedDescription":"An SSL error has occurred and a secure connection to the server cannot be made.","#
        + #""failingURL":"https://a.test/"},"reasons":[{"kind":"protocolTooOld","layer":"handshake","message":"TLS 1.0 is below TLS 1.2"}]},"#
        + #""hops":[\#(hop)]},"#
        + #"{"section":"Allowing Arbitrary Loads","title":"Allow All Loads","dictionary":{"NSAllowsArbitraryLoads":true},"#
        + #""result":"PASS","verdict":{"passed":true,"reasons":[]},"hops":[\#(hop)]}],"#
        + #""suggestion":{"kind":"exception","domain":"a.test","exception":{"NSExceptionMinimumTLSVersion":"TLSv1.0","N":2,"R":2.5},"#
        + #""fixes":[{"keys":["NSExceptionMinimumTLSVersion"],"change":"enable TLS 1.2","nginx":["ssl_protocols TLSv1.2;"],"#
        + #""apache":["SSLProtocol +TLSv1.2"],"haproxy":["ssl-min-ver TLSv1.2"]}]}}"#

    static let timeout = #"{"schemaVersion":2,"kind":"timeout","verdict":"timeout","input":"t.test:8443","line":2,"#
        + #""target":{"url":"https://t.test:8443/","host":"t.test","port":8443},"deadlineSeconds":60,"run":\#(runInfo),"#
        + #""finishedAt":"2026-01-01T00:01:00Z"}"#

    static let error = #"{"schemaVersion":2,"kind":"error","verdict":"error","input":"bad host","line":3,"#
        + #""message":"not a host name","run":\#(runInfo),"finishedAt":"2026-01-01T00:00:00Z"}"#

    /// A diagnose document (no kind, no line): no exception helps.
    static let document = #"{"schemaVersion":2,"target":{"url":"https://d.test/","host":"d.test","port":443},"ruleSet":"ios26","#
        + #""handshakes":1,"wallMilliseconds":3,"reachability":"answered","defaultPasses":false,"tests":[],"run":\#(runInfo),"#
        + #""finishedAt":"2026-01-01T00:00:02Z","missingIntermediate":{"warning":"the chain lacks an intermediate","fix":"serve it"},"#
        + #""suggestion":{"kind":"impossible","reason":"the certificate is expired","fixes":[]}}"#

    /// Text an attacker would put in a record: a fence, HTML, a heading, a formula, controls, bidi.
    static let hostile = #"K\n```\n<img src=x onerror=alert(1)>\n# live =1+1 \u001B[31m\u0007\u0085\u202E|`"#

    static let corpus: [[UInt8]] = [
        [result, timeout, error].joined(separator: "\n") + "\n",
        document,
        "[" + document + "," + document.replacing("d.test", with: "e.test") + "]",
        result.replacing(#""NSExceptionMinimumTLSVersion":"TLSv1.0""#, with: #""\#(hostile)":"\#(hostile)""#)
            .replacing(#""keys":["NSExceptionMinimumTLSVersion"]"#, with: #""keys":["\#(hostile)"]"#)
            .replacing(#""input":"a.test""#, with: #""input":"\#(hostile)""#) + "\r\n",
        error.replacing("not a host name", with: hostile) + "\n" + timeout + "\n",
    ].map { Array($0.utf8) } + [realRecords]

    /// A record of a real audit (Records/audit.jsonl, line 6: no exception helps, with its 16
    /// tests, 11 KB), so the mutants reach the matrices by origin of text, HTML and Markdown.
    static let realRecords: [UInt8] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Records/audit.jsonl")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        let lines = text.split(separator: "\n")
        guard lines.count > 5 else { return [] }
        return Array((lines[5] + "\n").utf8)
    }()

    /// Words that matter to JSON and to the formats: quotes, escapes, numbers out of range,
    /// schema fields, and the sinks' own syntax.
    static let words: [[UInt8]] = ByteMutator.dictionary + [
        #"\n"#, #"\u0000"#, #"\u202e"#, #"\ud800"#, "```", "<script>", "=HYPERLINK(", "1e300", "-1", "9223372036854775808",
        "2.5", "null", "true", "[]", "{}", #""schemaVersion":1,"#, #""kind":"result","#, #""verdict":"pass","#, ",", "|",
    ].map { Array($0.utf8) }

    /// Text for `substituteString`: each sink's syntax, controls, bidi, a formula, a long run.
    static let hostileTexts = [
        "\n", "\r", "\t", "\u{0}", "\u{1B}[31m", "\u{7}", "\u{85}", "\u{9B}", "\u{202E}", "\u{2066}", "\u{2028}", "\u{FEFF}",
        "```", "`", "~~~", "\\", "|", "# h", "* ", "- ", "1. ", "> ", "[a](javascript:alert(1))", "![i](http://x.test/b)",
        "<img src=x onerror=alert(1)>", "<script>", "</pre>", "<!--", "&lt;", "\"", "'", "=HYPERLINK(\"http://x.test\")", "+1",
        "-1", "@SUM(1)", ",", "\r\n", "..", "/", String(repeating: "a", count: 5000), "é", "\u{1F600}",
    ]

    /// One JSON string of `bytes` (a key or a value) replaced by hostile text, escaped as JSON:
    /// the input stays JSON, so the renderers see the text (byte mutants mostly break the JSON).
    static func substituteString(_ bytes: [UInt8], _ random: inout SeededRandom) -> [UInt8] {
        var quotes: [Int] = []
        var escaped = false
        for (index, byte) in bytes.enumerated() {
            if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { quotes.append(index) }
        }
        guard quotes.count >= 2 else { return bytes }
        let pair = Int(random.next() % UInt64(quotes.count / 2))
        var text = ""
        for _ in 0..<(1 + random.next() % 4) { text += hostileTexts[Int(random.next() % UInt64(hostileTexts.count))] }
        var literal = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": literal += "\\\""
            case "\\": literal += "\\\\"
            case _ where scalar.value < 0x20: literal += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            default: literal.unicodeScalars.append(scalar)
            }
        }
        return Array(bytes[...quotes[2 * pair]]) + Array(literal.utf8) + Array(bytes[quotes[2 * pair + 1]...])
    }

    /// The tags our HTML writes (ReportHTML, HTMLText): any other tag came from a record.
    static let ownTags: Set<String> = [
        "!doctype", "html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "h4", "section", "article", "div", "p",
        "span", "strong", "code", "pre", "a", "ul", "ol", "li", "dl", "dt", "dd", "table", "caption", "thead", "tbody", "tr",
        "th", "td",
    ]

    /// CPU-bound: on a thread of its own, not one of the cooperative threads other tests need.
    @Test func mutatedRecordsAreRefusedInOneLineOrRenderedSafely() async throws {
        let (inputs, read, problems) = try await offCooperativePool { Self.fuzz() }
        #expect(problems.isEmpty, "\(problems.count) problems, the first: \(problems.prefix(3))")
        // Both outcomes are exercised: most mutants break the JSON, some stay records.
        #expect(read > 0 && read < inputs, "\(read) of \(inputs) read")
    }

    /// Every corpus entry is read as it is: the fuzz starts from records, not from bad input.
    @Test func theCorpusReadsAndRendersCleanly() throws {
        #expect(!Self.realRecords.isEmpty, "Records/audit.jsonl was not read")
        for (index, bytes) in Self.corpus.enumerated() {
            let records = try ReportReader.records(from: bytes, name: "'corpus \(index)'")
            #expect(!records.isEmpty)
            #expect(Self.problems(records, input: bytes).isEmpty, "corpus \(index): \(Self.problems(records, input: bytes))")
        }
    }

    // MARK: hostile records that stay JSON (issue 40)

    /// `result` (line 1 of 'f') with `field` replaced: each is refused in one line naming the
    /// file, the line and the field, and none reaches a renderer (their numbers trapped: SIGILL).
    static let hostileRecords: [(what: String, from: String, to: String, error: String)] = [
        ("a wall time of 1e300", #""wallMilliseconds":12.5"#, #""wallMilliseconds":1e300"#,
         "'wallMilliseconds': out of range (0 to 2592000000 ms, 30 days)"),
        ("a wall time of -1e300", #""wallMilliseconds":12.5"#, #""wallMilliseconds":-1e300"#,
         "'wallMilliseconds': out of range (0 to 2592000000 ms, 30 days)"),
        ("handshakes of 2^63-1", #""handshakes":2"#, #""handshakes":9223372036854775807"#,
         "'handshakes': out of range (0 to 1000000)"),
        ("a horizon of 2^63-1", #""handshakes":2,"#, #""handshakes":2,"forecastWindow":{"from":"2026-01-01T00:00:00Z","horizonSeconds":9223372036854775807,"now":{"verdict":"exception","exception":[]}},"forecast":[],"#,
         "'forecastWindow.horizonSeconds': out of range (1 to 315360000 seconds, 3650 days)"),
        ("a horizon of 0", #""handshakes":2,"#, #""handshakes":2,"forecastWindow":{"from":"2026-01-01T00:00:00Z","horizonSeconds":0,"now":{"verdict":"exception","exception":[]}},"#,
         "'forecastWindow.horizonSeconds': out of range (1 to 315360000 seconds, 3650 days)"),
        ("port 0", #""port":443}"#, #""port":0}"#, "'target.port': out of range (1 to 65535)"),
        ("a connect port of 70000", #""port":443}"#, #""port":443,"connectAddress":"192.0.2.1","connectPort":70000}"#,
         "'target.connectPort': out of range (1 to 65535)"),
        ("line 0", #""line":1,"#, #""line":0,"#, "'line': out of range (input lines count from 1)"),
        // A record whose stored verdict its own tests contradict is refused, not believed.
        ("'pass' over failing tests", #""verdict":"exception""#, #""verdict":"pass""#,
         "'verdict': 'pass' disagrees with the record's own tests and advice, which give 'exception'"),
        ("defaultPasses over a failing default connection", #""defaultPasses":false"#, #""defaultPasses":true"#,
         "'defaultPasses': true disagrees with the default connection's test"),
        ("a FAIL test saying PASS", #""result":"FAIL""#, #""result":"PASS""#, "'tests.[0].result': disagrees with the test's verdict"),
        // The same key twice: Foundation read the first, jq and Python the last.
        ("verdict twice", #""verdict":"exception""#, #""verdict":"pass","verdict":"exception""#,
         "the key 'verdict' appears twice in one object (JSON readers disagree on which value counts)"),
        ("verdict twice, the second spelled with an escape", #""verdict":"exception""#, #""verdict":"exception","\u0076erdict":"pass""#,
         "the key 'verdict' appears twice in one object (JSON readers disagree on which value counts)"),
        ("passed twice in a test", #""verdict":{"passed":false,"#, #""verdict":{"passed":false,"passed":true,"#,
         "the key 'passed' appears twice in one object (JSON readers disagree on which value counts)"),
    ]

    @Test func hostileNumbersVerdictsAndKeysAreRefusedInOneLineNamingTheFileLineAndField() throws {
        for hostile in Self.hostileRecords {
            #expect(Self.result.contains(hostile.from), "\(hostile.what): the corpus changed")
            let line = Self.result.replacing(hostile.from, with: hostile.to)
            for (bytes, number) in [(line + "\n", 1), (Self.timeout + "\n" + Self.error + "\n" + line + "\n", 3)] {
                do {
                    let records = try ReportReader.records(from: Array(bytes.utf8), name: "'f'")
                    Issue.record("\(hostile.what) was read: \(records.map(\.verdict))")
                } catch {
                    #expect(error.message == "'f' line \(number): not an atsprobe record: \(hostile.error)", "\(hostile.what)")
                }
            }
        }
        // The same numbers at their bounds are read and rendered by every format.
        let sane = Self.result.replacing(#""handshakes":2,"#, with: #""handshakes":2,"forecastWindow":{"from":"2026-01-01T00:00:00Z","horizonSeconds":315360000,"now":{"verdict":"exception","exception":[]}},"forecast":[],"#)
            .replacing(#""wallMilliseconds":12.5"#, with: #""wallMilliseconds":2592000000"#)
        let report = Report(try ReportReader.records(from: Array((sane + "\n").utf8), name: "'f'"))
        for format in Report.formats { _ = report.render(format, verbose: true) }
        #expect(report.render(.text, verbose: false).contains("no change within 3650d"))
    }

    /// A pretty-printed diagnose document holding a key twice names the line of the second.
    @Test func aDocumentHoldingAKeyTwiceNamesTheLine() throws {
        let pretty = Self.document.replacing(#""handshakes":1,"#, with: "\n\"handshakes\":1,\n\"handshakes\":1,\n")
        do {
            _ = try ReportReader.records(from: Array(pretty.utf8), name: "'d.json'")
            Issue.record("read")
        } catch {
            #expect(error.message == "'d.json' line 3: not an atsprobe record: the key 'handshakes' appears twice in one object (JSON readers disagree on which value counts)")
        }
        // A key repeated in different objects is no duplicate; one spelled with escapes is.
        #expect(JSONDuplicateKeys.first(in: Array(#"{"a":{"a":1},"b":[{"a":2},{"a":3}],"c":"\"a\":"}"#.utf8)[...]) == nil)
        #expect(JSONDuplicateKeys.first(in: Array(#"{"a":1,"b":{"x":[1,{"y":2}],"x":3}}"#.utf8)[...])?.key == "x")
        #expect(JSONDuplicateKeys.first(in: Array(#"{"\ud83d\ude00":1,"😀":2}"#.utf8)[...])?.key == "😀")
    }

    /// A bad-line record (an input line that never became a target) whose text is a URL does not
    /// stand for that target in a baseline: the target is new and fails, not CHANGED (issue 40).
    @Test func aBadLineNeverStandsForTheTargetItsTextNames() throws {
        let badLine = Self.error.replacing(#""input":"bad host""#, with: #""input":"https://a.test/""#)
        let old = try ReportReader.records(from: Array((badLine + "\n").utf8), name: "'old'")
        let new = try ReportReader.records(from: Array((Self.result + "\n").utf8), name: "'new'")
        #expect(old[0].name == new[0].name, "the two name the same text")
        let comparison = BaselineComparison(old: old.map(BaselineComparison.Side.init), new: new.map(BaselineComparison.Side.init))
        #expect(comparison.entries.map(\.state) == [.new])
        #expect(comparison.worse.count == 1)
        #expect(comparison.absent == ["https://a.test/"])
        // A bad line matches the same bad line in the other run.
        let again = BaselineComparison(old: old.map(BaselineComparison.Side.init), new: old.map(BaselineComparison.Side.init))
        #expect(again.entries.map(\.state) == [.unchanged] && again.absent.isEmpty)
        // Nor is one run refused for holding both.
        let both = try ReportReader.numberedRecords(from: Array((badLine + "\n" + Self.result + "\n").utf8), name: "'both'")
        try RunRecords.refuseDuplicates([("'both'", both)])
    }

    static func fuzz() -> (inputs: Int, read: Int, problems: [String]) {
        var random = run.random(salt: 13)
        var problems: [String] = []
        var index = 0, read = 0
        while run.allows(index) {
            let seed = corpus[index % corpus.count]
            let bytes = random.next() % 2 == 0 ? ByteMutator.mutate(seed, words: words, &random) : substituteString(seed, &random)
            index += 1
            do {
                let records = try ReportReader.records(from: bytes, name: "'fuzz'")
                read += 1
                problems += Self.problems(records, input: bytes)
            } catch {
                if error.message.contains("\n") || error.message.unicodeScalars.contains(where: UntrustedText.isInvisibleOrControl) {
                    problems.append("raw control in the error \(error.message.debugDescription)")
                }
            }
            if problems.count > 20 { break }
        }
        run.report(index, detail: "\(read) read, \(problems.count) problems")
        return (index, read, problems)
    }

    /// What broke a promise in the report of `records` (read from `input`).
    static func problems(_ records: [AuditRecord], input: [UInt8]) -> [String] {
        let report = Report(records)
        var problems: [String] = []
        func fail(_ what: String) { problems.append("\(what), from \(String(decoding: input, as: UTF8.self).debugDescription)") }
        let text = report.render(.text, verbose: false), verbose = report.render(.text, verbose: true)
        let markdown = report.render(.markdown, verbose: false), html = report.render(.html, verbose: false)
        let csv = report.render(.csv, verbose: false)
        for (name, output) in [("text", text), ("verbose text", verbose), ("Markdown", markdown), ("HTML", html), ("CSV", csv)] {
            // Ours: line ends, CSV's CR LF, and the exception fragment's tabs.
            let raw = output.unicodeScalars.filter { !"\n\r\t".unicodeScalars.contains($0) && UntrustedText.isInvisibleOrControl($0) }
            if !raw.isEmpty { fail("\(name) holds raw \(raw.map { String($0.value, radix: 16) })") }
        }
        // One line per target, then the matrix by origin (ReportTextMatrix), each of whose lines
        // is ours: the headers, a row (verdict and a cell per test), a row's paths or the legend, indented.
        let matrix = ReportTextMatrix(report).render()
        let entries = text.hasSuffix(matrix) ? String(text.dropLast(matrix.count)) : ""
        if !text.hasSuffix(matrix) || entries.split(separator: "\n", omittingEmptySubsequences: false).count != records.count + 1 {
            fail("text is not one line per target, then the matrix: \(text.debugDescription)")
        }
        for line in matrix.split(separator: "\n") where !(line.hasPrefix("nscurl's ") || line.hasPrefix("Verdict ") || line.hasPrefix("Tests: ")
                                                             || line.hasPrefix(String(repeating: " ", count: 7))
                                                             || line.wholeMatch(of: Self.matrixRow) != nil) {
            fail("a matrix line that is not ours: \(line.debugDescription)")
        }
        problems += markdownProblems(markdown).map { "Markdown: \($0)" }
        let tags = html.matches(of: /<\/?(!?[A-Za-z][A-Za-z0-9]*)/).map { $0.1.lowercased() }
        if let foreign = tags.first(where: { !ownTags.contains($0) }) { fail("HTML has a tag <\(foreign)> of a record's") }
        let rows = csv.split(separator: "\r\n", omittingEmptySubsequences: false).dropLast()
        if rows.count != records.count + 1 { fail("CSV has \(rows.count) rows for \(records.count) targets") }
        for row in rows {
            let cells = csvCells(String(row))
            if cells.count != ReportCSV.columns.count + ReportCSV.testColumns.count { fail("a CSV row of \(cells.count) cells: \(row)") }
            if let formula = cells.first(where: { $0.first.map { "=+-@".contains($0) } ?? false }) { fail("a CSV formula \(formula)") }
        }
        // Written again as audit writes them, and read back: the same report, byte for byte.
        do {
            let lines = try records.map { String(decoding: try JSONEncoder.atsprobe(pretty: false).encode($0), as: UTF8.self) }
            let again = Report(try ReportReader.records(from: Array((lines.joined(separator: "\n") + "\n").utf8), name: "'again'"))
            for format in [OutputFormat.text, .markdown, .html, .csv] where again.render(format, verbose: true) != report.render(format, verbose: true) {
                fail("\(format) differs once written and read again")
            }
        } catch {
            fail("written again, not read back: \(error)")
        }
        return problems
    }

    /// Fences pair, nothing inside one starts a fence, and outside them no record text starts a
    /// line of its own or opens HTML: every `<` is backslash-escaped.
    static func markdownProblems(_ markdown: String) -> [String] {
        var problems: [String] = []
        var inFence = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                if !inFence, line != "```", line != "```xml" { problems.append("a fence opened as \(line)") }
                if inFence, line != "```" { problems.append("a fence closed as \(line)") }
                inFence.toggle()
                continue
            }
            if inFence { continue }
            // The renderer's own folding: `<details><summary><code>NAME</code>: VERDICT</summary>`
            // with the record's name HTML-escaped (no tag can open inside it), and `</details>`.
            if line == "</details>" { continue }
            if line.hasPrefix("<details><summary><code>"), line.hasSuffix("</summary>") {
                let inner = line.dropFirst("<details><summary><code>".count).dropLast("</summary>".count)
                guard let close = inner.range(of: "</code>: ", options: .backwards) else { problems.append("a summary without its code: \(line)"); continue }
                let name = inner[..<close.lowerBound], verdict = inner[close.upperBound...]
                if name.contains("<") || name.contains(">") || verdict.contains("<") { problems.append("HTML inside a summary: \(line)") }
                continue
            }
            // Code spans as CommonMark reads them (6.1): a run of N backticks opens one, closed by
            // the next run of exactly N; inside, nothing is live. Outside, a `<` after an even
            // number of backslashes is live HTML.
            let characters = Array(line)
            var index = 0, backslashes = 0
            while index < characters.count {
                let ch = characters[index]
                if ch == "`", backslashes % 2 == 0 {
                    var run = 0
                    while index + run < characters.count, characters[index + run] == "`" { run += 1 }
                    var search = index + run, closed = false
                    while search < characters.count {
                        if characters[search] == "`" {
                            var other = 0
                            while search + other < characters.count, characters[search + other] == "`" { other += 1 }
                            if other == run { closed = true; search += other; break }
                            search += other
                        } else { search += 1 }
                    }
                    if !closed { problems.append("a code span left open: \(line)"); break }
                    index = search
                    backslashes = 0
                    continue
                }
                if ch == "<", backslashes % 2 == 0 { problems.append("live HTML: \(line)") }
                backslashes = ch == "\\" ? backslashes + 1 : 0
                index += 1
            }
            let own = ["# ", "## ", "### ", "- **", "- ", "| ", "|---", "Why: ", "Minimal exception", "Server fix", "Tests: ",
                       "Each target's details", "One row per origin"]
            if !line.isEmpty, !own.contains(where: { line.hasPrefix($0) }) { problems.append("a line of a record's: \(line)") }
        }
        if inFence { problems.append("a fence left open") }
        return problems
    }

    /// RFC 4180 cells of one row (quotes doubled inside quoted cells).
    static func csvCells(_ row: String) -> [String] {
        var cells: [String] = [], cell = "", quoted = false, wasQuoted = false
        var characters = row.makeIterator()
        while let ch = characters.next() {
            if quoted {
                if ch == "\"" {
                    if let next = characters.next() {
                        if next == "\"" { cell.append("\"") } else { quoted = false; if next == "," { cells.append(cell); cell = ""; wasQuoted = false } else { cell.append(next) } }
                    } else { quoted = false }
                } else { cell.append(ch) }
            } else if ch == "\"", cell.isEmpty, !wasQuoted {
                quoted = true; wasQuoted = true
            } else if ch == "," {
                cells.append(cell); cell = ""; wasQuoted = false
            } else {
                cell.append(ch)
            }
        }
        cells.append(cell)
        return cells
    }
}

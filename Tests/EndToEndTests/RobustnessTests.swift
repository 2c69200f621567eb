import ATSTestServers
import Foundation
import Testing
import TestSupport

/// The hostile battery of issue 15, end to end (docs/robustness.md): hostile files, exhausted
/// descriptors, closed or full output. Each test names the row it guards.
@Suite struct RobustnessTests {
    /// scripts/asan stretches the tests' own time bounds and the product's --timeout: ASan is slow.
    static let scale = ProcessInfo.processInfo.environment["ATSPROBE_TEST_TIME_SCALE"].flatMap(Double.init) ?? 1

    /// A fresh temporary directory, removed after `body`.
    static func withDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
        try await withTemporaryDirectory(prefix: "atsprobe-robust") { try await body($0.path) }
    }

    /// Runs `script` with bash, "$0" being the atsprobe binary; drains both pipes. On a thread
    /// of its own, as BinaryRunner.run, so waiting never holds one of Swift's few cooperative
    /// threads (other tests' servers and probes need them).
    static func shell(_ script: String, timeout: Double = 60) async throws -> (status: Int32, stdout: String, stderr: String, seconds: Double) {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try shellBlocking(script, timeout: timeout) }) }.start()
        }
    }

    static func shellBlocking(_ script: String, timeout: Double) throws -> (status: Int32, stdout: String, stderr: String, seconds: Double) {
        let start = Date()
        let process = try SpawnedProcess("/bin/bash", ["-c", script, BinaryRunner.binaryURL.path],
                                         environment: ProcessInfo.processInfo.environment.merging(["NO_COLOR": "1"]) { $1 })
        let timedOut = process.finish(within: timeout)
        #expect(!timedOut, "script did not finish within \(timeout) s: \(script)")
        return (process.exitCode, String(decoding: process.stdout, as: UTF8.self), String(decoding: process.stderr, as: UTF8.self),
                Date().timeIntervalSince(start))
    }

    // Row 1: closing tags hidden in comments or CDATA used to pass the depth pre-check.
    @Test(arguments: ["<!-- </array> -->", "<![CDATA[</array>]]>", "<?pi </array> ?>"])
    func deepPlistWithHiddenClosingTagsIsNotAPropertyList(hider: String) async throws {
        try await Self.withDirectory { directory in
            let path = directory + "/deep.plist"
            let body = String(repeating: "<array>" + hider, count: 100_000) + String(repeating: "</array>", count: 100_000)
            try Data(("<?xml version=\"1.0\"?><plist><dict><key>a</key>" + body + "</dict></plist>").utf8).write(to: URL(fileURLWithPath: path))
            for arguments in [["plist", "lint", path], ["plist", "check", path, "127.0.0.1:1"], ["diagnose", "--merge", path, "127.0.0.1:1"],
                              ["pins", "--plist", path, "127.0.0.1:1"]] {
                let result = try await BinaryRunner.run(arguments, timeout: 60)
                #expect(result.status == 64, "\(arguments): \(result.status) \(result.stderr)")
                #expect(result.stderr == "atsprobe: '\(path)' is not a property list\n", "\(arguments)")
            }
        }
    }

    // Row 2 and the class: every numeric option checked into its documented range.
    @Test(arguments: [
        (["audit", "--rate", "1e-10", "x"], "--rate"), (["audit", "--rate", "nan", "x"], "--rate"),
        (["audit", "--rate", "inf", "x"], "--rate"), (["audit", "--deadline", "nan", "x"], "--deadline"),
        (["audit", "--concurrency", "0", "x"], "--concurrency"), (["audit", "--per-host", "0", "x"], "--per-host"),
        (["probe", "--timeout", "nan", "x"], "--timeout"), (["probe", "--timeout", "1e300", "x"], "--timeout"),
    ])
    func numericOptionOutOfRangeIsOneLineAndExit64(arguments: [String], option: String) async throws {
        let result = try await BinaryRunner.run(arguments, timeout: 30)
        #expect(result.status == 64, "\(arguments): \(result.status) \(result.stderr)")
        #expect(result.stderr.hasPrefix("atsprobe: \(option) must be"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    // Row 3: a full stdout is a failed run, for every command that writes results.
    @Test func fullStandardOutputIsExit64() async throws {
        try await Self.withDirectory { directory in
            let plist = directory + "/Info.plist"
            try Data("<?xml version=\"1.0\"?><plist><dict><key>NSAppTransportSecurity</key><dict><key>NSAllowsArbitraryLoads</key><true/></dict></dict></plist>".utf8)
                .write(to: URL(fileURLWithPath: plist))
            let refused = try unusedLoopbackPort()
            for command in ["plist lint '\(plist)'", "diagnose 127.0.0.1:\(refused) --timeout 1", "probe 127.0.0.1:\(refused) --timeout 1",
                            "plist check '\(plist)' 127.0.0.1:\(refused) --timeout 1", "audit 127.0.0.1:\(refused) --timeout 1",
                            "diagnose --merge '\(plist)' 127.0.0.1:\(refused) --timeout 1"] {
                let result = try await Self.shell("\"$0\" \(command) > /dev/full")
                #expect(result.status == 64, "\(command): \(result.status) \(result.stderr)")
                #expect(result.stderr.contains("atsprobe: cannot write standard output: "), "\(command): \(result.stderr)")
            }
        }
    }

    // Row 9: with SIGPIPE ignored, the first EPIPE ends the run at once.
    @Test func brokenPipeEndsTheRunAtOnce() async throws {
        let server = try HostileServer.start(.silent)
        defer { server.stop() }
        try await Self.withDirectory { directory in
            // 40 targets a second each at --concurrency 4: 10 s if the run went on after the reader left.
            let input = directory + "/targets.txt"
            let lines = (0..<40).map { "127.0.0.1:\(server.port)/\($0)" }.joined(separator: "\n")
            try Data(lines.utf8).write(to: URL(fileURLWithPath: input))
            let result = try await Self.shell("trap '' PIPE; export ASAN_OPTIONS=\"${ASAN_OPTIONS:-}:detect_leaks=0\"; \"$0\" audit --json --timeout 1 --concurrency 4 --per-host 4 --input '\(input)' | head -c 1 >/dev/null; echo \"status=${PIPESTATUS[0]}\" >&2")
            #expect(result.stderr.contains("status=64"), "\(result.stderr)")
            #expect(result.stderr.contains("cannot write standard output: broken pipe"), "\(result.stderr)")
            #expect(result.seconds < 6 * Self.scale, "ran on for \(result.seconds) s after the reader left")
        }
    }

    // Row 6: a FIFO in --ca-dir (or --ca-dir /dev) is skipped, not read forever.
    @Test func fifoAndDevicesInCADirectoryAreSkipped() async throws {
        try await Self.withDirectory { directory in
            #expect(mkfifo(directory + "/anchor.pem", 0o600) == 0)
            let refused = try unusedLoopbackPort()
            for caDir in [directory, "/dev"] {
                let result = try await BinaryRunner.run(["probe", "--ca-dir", caDir, "127.0.0.1:\(refused)", "--timeout", "1"], timeout: 20)
                #expect(!result.timedOut, "--ca-dir \(caDir) hung")
                #expect(result.status == 2, "\(caDir): \(result.status) \(result.stderr)")
            }
            let named = try await BinaryRunner.run(["probe", "--ca-file", "/dev/zero", "127.0.0.1:\(refused)"], timeout: 20)
            #expect(named.status == 64)
            #expect(named.stderr == "atsprobe: --ca-file '/dev/zero': cannot read file (is a character device, not a file)\n", "\(named.stderr)")
        }
    }

    // Row 7: unreadable input is an error naming it, not "0 targets".
    @Test func unreadableAuditInputIsExit64() async throws {
        try await Self.withDirectory { directory in
            for (input, reason) in [(directory, "is a directory"), ("/proc/self/mem", "Input/output error"), ("/dev/zero", "character device")] {
                let result = try await BinaryRunner.run(["audit", "--input", input], timeout: 20)
                #expect(result.status == 64, "\(input): \(result.status) \(result.stderr)")
                #expect(result.stderr.contains("atsprobe: cannot read --input '\(input)': "), "\(result.stderr)")
                #expect(result.stderr.contains(reason), "\(result.stderr)")
            }
        }
    }

    // Row 15: a byte-order mark is not part of the first target.
    @Test func byteOrderMarkIsIgnored() async throws {
        try await Self.withDirectory { directory in
            let refused = try unusedLoopbackPort()
            let input = directory + "/targets.txt"
            try Data([0xEF, 0xBB, 0xBF] + Array("127.0.0.1:\(refused)\n".utf8)).write(to: URL(fileURLWithPath: input))
            let result = try await BinaryRunner.run(["audit", "--json", "--timeout", "1", "--input", input], timeout: 30)
            let records = try AuditTests.records(result.stdout)
            #expect(records.map(\.input) == ["127.0.0.1:\(refused)"])
            #expect(records.map(\.verdict) == ["unreachable"])
            let diagnose = try await BinaryRunner.run(["diagnose", "--json", "--timeout", "1", "--input", input], timeout: 30)
            #expect(diagnose.status == 2, "\(diagnose.stderr)")
            #expect(!diagnose.stdout.contains("xn--"), "\(diagnose.stdout)")
        }
    }

    // Row 14: C1 controls and bidi overrides never leave raw, on any channel.
    @Test func invisibleCharactersAreEscapedEverywhere() async throws {
        let refused = try unusedLoopbackPort()
        let rawBytes: [UInt8] = [0x1B, 0xC2, 0x9B, 0xE2, 0x80, 0xAE]  // ESC, U+009B, U+202E in UTF-8
        func assertClean(_ text: String, _ what: String) {
            let bytes = Array(text.utf8)
            #expect(!bytes.contains(0x1B), "\(what): raw ESC")
            #expect(bytes.firstRange(of: rawBytes[1...2]) == nil, "\(what): raw U+009B")
            #expect(bytes.firstRange(of: rawBytes[3...5]) == nil, "\(what): raw U+202E")
        }
        let cases: [[String]] = [
            ["audit", "--concurrency", "\u{1B}[2J"],
            ["probe", "127.0.0.1:9\u{202E}9"],
            ["probe", "127.0.0.1:9\u{9B}9"],
            ["audit", "--json", "--timeout", "1", "https://127.0.0.1:\(refused)/\u{202E}cod.exe"],
            ["audit", "--timeout", "1", "https://127.0.0.1:\(refused)/\u{202E}cod.exe"],
            ["audit", "--json", "https://127.0.0.1:\(refused)/\u{9B}x"],
            ["diagnose", "--json", "--timeout", "1", "https://127.0.0.1:\(refused)/\u{202E}x"],
        ]
        for arguments in cases {
            let result = try await BinaryRunner.run(arguments, timeout: 30)
            #expect(result.status != 0)
            assertClean(result.stdout, "\(arguments) stdout")
            assertClean(result.stderr, "\(arguments) stderr")
        }
    }

    // Row 4: a low `ulimit -n` slows the audit; it never turns passing targets into failures.
    @Test func lowDescriptorLimitChangesNoVerdict() async throws {
        let host = try LoopbackHost()
        defer { host.stop() }
        let (server, root) = (host.server, host.rootPath)
        try await Self.withDirectory { directory in
            let input = directory + "/targets.txt"
            try Data(((0..<100).map { "https://127.0.0.1:\(server.port)/\($0)" }.joined(separator: "\n") + "\n").utf8)
                .write(to: URL(fileURLWithPath: input))
            let result = try await Self.shell("for fd in /proc/$$/fd/*; do n=${fd##*/}; [ \"$n\" -gt 2 ] && eval \"exec $n>&-\"; done; export ASAN_OPTIONS=\"${ASAN_OPTIONS:-}:detect_leaks=0\"; ulimit -n 48; exec \"$0\" audit --json --concurrency 64 --per-host 64 --timeout 10 --ca-file '\(root)' --input '\(input)'",
                                        timeout: 180)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("--concurrency 64 needs more open files than the limit allows"), "\(result.stderr)")
            let records = try AuditTests.records(result.stdout)
            #expect(records.count == 100)
            #expect(Set(records.map(\.input)).count == 100)
            #expect(records.allSatisfy { $0.verdict == "pass" }, "\(Dictionary(grouping: records, by: \.verdict).mapValues(\.count))")
        }
    }

    // Item 2: the hostile battery in one audit. Each hostile target gets its documented verdict
    // by its deadline, and every good target beside it still passes.
    @Test func hostileServersLeaveEveryOtherTargetIntact() async throws {
        let pki = try TestPKI()
        let root = try pki.writeRootPEM()
        let identity = try pki.issue(CertificateSpec())
        var stops: [() -> Void] = []
        defer { for stop in stops { stop() } }
        var expected: [(String, String)] = []
        func tls(_ configuration: TLSServerConfiguration, _ verdict: String, path: String = "/") throws {
            let server = try TestTLSServer.start(configuration)
            stops.append(server.stop)
            expected.append(("https://127.0.0.1:\(server.port)\(path)", verdict))
        }
        func hostile(_ behavior: HostileBehavior, _ verdict: String) throws {
            let server = try HostileServer.start(behavior)
            stops.append(server.stop)
            expected.append(("127.0.0.1:\(server.port)", verdict))
        }
        func good() throws { try tls(TLSServerConfiguration(identity: identity), "pass") }
        // A load whose response never completes (trickled past --timeout, a head without end,
        // a reset) fails after a good handshake, as URLSession's does (-1001, -1005): no
        // exception helps. A Location that cannot be followed leaves the 302 as the response.
        var requestingCertificate = TLSServerConfiguration(identity: identity)
        requestingCertificate.requestClientCertificate = true
        let injection = Array("HTTP/1.1 302 Found\r\nLocation: /x\nX-Injected: 1\r\nContent-Length: 0\r\n\r\n".utf8)

        try good()
        try hostile(.slowHandshake(intervalMilliseconds: 100), "unreachable")
        try good()
        try hostile(.warningAlerts(64), "no-exception")
        try hostile(.resetAfterClientHello, "unreachable")
        try hostile(.silent, "unreachable")
        try good()
        try tls(TLSServerConfiguration(identity: identity, http: .trickle(Array("HTTP/1.1 200 OK\r\n\r\n".utf8), intervalMilliseconds: Int(600 * Self.scale))), "no-exception")
        try tls(TLSServerConfiguration(identity: identity, http: .endlessHeaders), "no-exception")
        try tls(TLSServerConfiguration(identity: identity, http: .endlessBody), "pass")
        try tls(TLSServerConfiguration(identity: identity, http: .raw(injection)), "pass")
        // A redirect loop fails every test as URLSession fails it (-1007, NSURLErrorHTTPTooManyRedirects).
        try tls(TLSServerConfiguration(identity: identity, http: .perPath(["/a": .redirect(to: "/b"), "/b": .redirect(to: "a")])), "no-exception", path: "/a")
        try tls(TLSServerConfiguration(identity: identity, maxVersion: .tls12, http: .renegotiate(then: .ok)), "pass")
        // CPU-heavy certificates are made on a thread of their own, off the cooperative pool.
        let (ladder, crowded) = try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result {
                    (try pki.issueUnderLadder(depth: 50, CertificateSpec()),
                     try pki.issue(CertificateSpec(dnsNames: ["localhost"] + (0..<10_000).map { "n\($0).test" })))
                })
            }.start()
        }
        try tls(TLSServerConfiguration(identity: ladder), "pass")
        try tls(TLSServerConfiguration(identity: crowded), "no-exception")
        try tls(requestingCertificate, "pass")
        try tls(TLSServerConfiguration(identity: identity, http: .reset), "no-exception")
        try good()
        expected.append(("127.0.0.1:\(try unusedLoopbackPort())", "unreachable"))

        let start = Date()
        // 5 s per connection: 25 targets' 10 handshakes each share 2 cores with the rest of the
        // suite, and a good server must not time out when the machine is busy (seen at 2 s).
        let result = try await BinaryRunner.run(["audit", "--json", "--input", "-", "--ca-file", root, "--timeout", "\(5 * Self.scale)", "--per-host", "32"],
                                                timeout: 120, stdin: expected.map(\.0).joined(separator: "\n") + "\n")
        let seconds = Date().timeIntervalSince(start)
        #expect(!result.timedOut)
        #expect(result.status == 2, "\(result.stderr)")
        let records = try AuditTests.records(result.stdout)
        #expect(records.count == expected.count)
        for (text, verdict) in expected {
            let matching = records.filter { $0.input == text }
            #expect(matching.count == 1, "\(text) appears \(matching.count) times")
            #expect(matching.first?.verdict == verdict, "#\(expected.firstIndex { $0.0 == text } ?? -1) \(text): \(matching.first?.verdict ?? "missing"), expected \(verdict)")
        }
        // Every target's probes run at once and each ends by --timeout (5 s), redirects aside.
        #expect(seconds < 60 * Self.scale, "the audit took \(seconds) s")
    }

    // Issue 40, items 1 and 5: `report` refuses what it cannot believe, in one line naming the
    // file and the line, exit 64, in every format: numbers out of range (a wall time of 1e300
    // and a horizon of 2^63-1 trapped, SIGILL), a stored verdict its own tests contradict (it
    // was believed: PASS, exit 0), a key held twice (atsprobe read the first value, jq the last).
    @Test func recordsReportCannotBelieveAreRefusedInOneLine() async throws {
        let golden = PlistFormatsTests.golden.appendingPathComponent("ci-records.jsonl")
        let lines = try String(contentsOf: golden, encoding: .utf8).split(separator: "\n").map(String.init)
        let failing = try #require(lines.first { $0.contains(#""verdict":"no-exception""#) })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(failing.utf8)) as? [String: Any])
        func edited(_ change: (inout [String: Any]) -> Void) throws -> String {
            var copy = object
            change(&copy)
            return String(decoding: try JSONSerialization.data(withJSONObject: copy, options: [.sortedKeys]), as: UTF8.self)
        }
        let horizon: (Int64) -> (inout [String: Any]) -> Void = { seconds in
            { $0["forecastWindow"] = ["from": "2026-01-01T00:00:00Z", "horizonSeconds": NSNumber(value: seconds),
                                      "now": ["verdict": "no-exception", "exception": [String]()]] as [String: Any]
              $0["forecast"] = [Any]() }
        }
        let formats = ["text", "markdown", "html", "junit", "openmetrics", "csv", "sarif"]
        let cases: [(what: String, record: String, error: String)] = [
            ("a wall time of 1e300", try edited { $0["wallMilliseconds"] = 1e300 }, "'wallMilliseconds': out of range"),
            ("a wall time of -1e300", try edited { $0["wallMilliseconds"] = -1e300 }, "'wallMilliseconds': out of range"),
            ("a horizon of 2^63-1", try edited(horizon(Int64.max)), "'forecastWindow.horizonSeconds': out of range"),
            ("'pass' over failing tests", try edited { $0["verdict"] = "pass" },
             "'verdict': 'pass' disagrees with the record's own tests and advice, which give 'no-exception'"),
            ("verdict twice", failing.replacingOccurrences(of: #""verdict":"no-exception""#, with: #""verdict":"pass","verdict":"no-exception""#),
             "the key 'verdict' appears twice in one object"),
        ]
        try await Self.withDirectory { directory in
            for (index, hostile) in cases.enumerated() {
                let path = directory + "/\(index).jsonl"
                try Data((lines[0] + "\n" + hostile.record + "\n").utf8).write(to: URL(fileURLWithPath: path))
                for format in formats {
                    let result = try await BinaryRunner.run(["report", "--format", format, path], timeout: 30)
                    #expect(result.status == 64, "\(hostile.what), \(format): \(result.status) \(result.stderr.prefix(300))")
                    #expect(result.stderr.hasPrefix("atsprobe: '\(path)' line 2: not an atsprobe record: \(hostile.error)"),
                            "\(hostile.what), \(format): \(result.stderr.prefix(300))")
                    #expect(result.stderr.split(separator: "\n").count == 1 && result.stdout.isEmpty, "\(hostile.what), \(format)")
                }
            }
            // The horizon's longest value (3650 days) is read and rendered.
            let sane = directory + "/sane.jsonl"
            try Data((try edited(horizon(3_650 * 86_400)) + "\n").utf8).write(to: URL(fileURLWithPath: sane))
            for format in formats {
                let result = try await BinaryRunner.run(["report", "--format", format, sane], timeout: 30)
                #expect(result.status == 1, "\(format): \(result.status) \(result.stderr.prefix(300))")
            }
        }
    }

    // Issue 40, item 5: a bad line whose text is a URL (an input line that never became a
    // target) does not stand for that target in a baseline. It did: the target's failure read
    // CHANGED, exit 0; it is NEW and fails, exit 1.
    @Test func aBadLineInTheBaselineNeverStandsForATarget() async throws {
        let golden = PlistFormatsTests.golden.appendingPathComponent("ci-records.jsonl")
        let lines = try String(contentsOf: golden, encoding: .utf8).split(separator: "\n").map(String.init)
        let failing = try #require(lines.first { $0.contains(#""verdict":"no-exception""#) })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(failing.utf8)) as? [String: Any])
        let url = try #require((object["target"] as? [String: Any])?["url"] as? String)
        var bad = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        bad["input"] = url
        try await Self.withDirectory { directory in
            let old = directory + "/old.jsonl", new = directory + "/new.jsonl"
            try JSONSerialization.data(withJSONObject: bad, options: [.sortedKeys]).write(to: URL(fileURLWithPath: old))
            try Data((failing + "\n").utf8).write(to: URL(fileURLWithPath: new))
            let result = try await BinaryRunner.run(["report", "--diff", old, new], timeout: 30)
            #expect(result.status == 1, "\(result.status) \(result.stderr)")
            #expect(result.stdout.contains("NEW (fails)  \(url): not in the baseline -> no exception helps"), "\(result.stdout)")
            #expect(result.stdout.contains("ABSENT       \(url): in the baseline, not audited this time"), "\(result.stdout)")
            #expect(!result.stdout.contains("CHANGED"), "\(result.stdout)")
        }
    }

    // Issue 40, item 7 (RFC 3986 section 7.5): a password in a URL reaches no output channel:
    // not stderr, the text, the JSON record or the records file, the metrics' label, the
    // reports of the records; the line is named with the password redacted.
    @Test func aPasswordInAURLReachesNoOutput() async throws {
        let refused = try unusedLoopbackPort()
        let url = "https://user:secret@127.0.0.1:\(refused)/"
        let redacted = "https://user:REDACTED@127.0.0.1:\(refused)/"
        try await Self.withDirectory { directory in
            let input = directory + "/targets.txt", records = directory + "/records.jsonl"
            try Data("\(url)\nuser:secret@127.0.0.1:\(refused)\n".utf8).write(to: URL(fileURLWithPath: input))
            let plist = directory + "/Info.plist"
            try Data("<?xml version=\"1.0\"?><plist><dict><key>NSAppTransportSecurity</key><dict/></dict></plist>".utf8)
                .write(to: URL(fileURLWithPath: plist))
            let runs: [[String]] = [
                ["audit", url], ["audit", "--json", url], ["audit", "--format", "openmetrics", url],
                ["audit", "--format", "markdown", "--input", input, "--records", records],
                ["diagnose", url], ["diagnose", "--json", url], ["probe", url], ["pins", url], ["plist", "explain", plist, url], ["plist", "check", plist, url],
                [url], ["cert", plist, "--host", url], ["probe", "--connect-to", "\(url):127.0.0.1:\(refused)", "127.0.0.1:\(refused)"],
            ]
            var named = false
            for arguments in runs {
                let result = try await BinaryRunner.run(arguments, timeout: 30)
                #expect(result.status != 0)
                for (channel, text) in [("stdout", result.stdout), ("stderr", result.stderr)] {
                    #expect(!text.contains("secret"), "\(arguments) \(channel): \(text.prefix(600))")
                    named = named || text.contains(redacted)
                }
            }
            #expect(named, "no output named the line with its password redacted")
            let written = try String(contentsOfFile: records, encoding: .utf8)
            #expect(!written.contains("secret") && written.contains(redacted) && written.contains("user:REDACTED@127.0.0.1"), "\(written)")
            for format in ["text", "openmetrics", "html", "junit", "sarif"] {
                let report = try await BinaryRunner.run(["report", "--format", format, records], timeout: 30)
                #expect(!report.stdout.contains("secret") && !report.stderr.contains("secret"), "report \(format)")
            }
        }
    }
}

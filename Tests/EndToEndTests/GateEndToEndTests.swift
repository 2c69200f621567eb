import ATSTestServers
import Foundation
import Testing
import TestSupport

/// Issue 31 through the binary: gates that hold (a target held twice refused, a bad line is 64
/// with or without a baseline), instants that are the ones asked, outputs that survive an
/// interrupt, and the smaller items. Every server is on loopback, started and stopped here.
@Suite struct GateEndToEndTests {
    /// A result record; a pass has its passing default connection (the reader refuses a verdict
    /// the record's own tests contradict).
    static func record(_ host: String, verdict: String, line: Int = 1) -> String {
        let tests = verdict == "pass"
            ? #"[{"section":"S","title":"ATS Default Connection","dictionary":{},"result":"PASS","verdict":{"passed":true,"reasons":[]},"hops":[]}]"#
            : "[]"
        return #"{"schemaVersion":2,"kind":"result","verdict":"\#(verdict)","input":"\#(host)","line":\#(line),"#
            + #""target":{"url":"https://\#(host)/","host":"\#(host)","port":443},"ruleSet":"ios26","handshakes":1,"#
            + #""wallMilliseconds":12,"reachability":"answered","defaultPasses":\#(verdict == "pass"),"tests":\#(tests),"suggestion":{"kind":"none"}}"#
    }

    // MARK: item 1

    @Test func aBaselineOrNewFileHoldingATargetTwiceIsRefused() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let old = try directory.write("old.jsonl", [Self.record("a.test", verdict: "pass")].joined(separator: "\n") + "\n")
        // A crafted line prepended: the passing record first, the regression after it.
        let new = try directory.write("new.jsonl", [Self.record("a.test", verdict: "pass"), Self.record("a.test", verdict: "no-exception", line: 2)]
            .joined(separator: "\n") + "\n")
        let diff = try await BinaryRunner.run(["report", "--diff", old, new], timeout: 60)
        #expect(diff.status == 64, "\(diff.stdout)\(diff.stderr)")
        #expect(diff.stderr == "atsprobe: '\(new)' input lines 1 and 2 both name 'https://a.test/' (records at lines 1 and 2): a run audits each target once, so neither record can stand for it; remove one of the lines\n", "\(diff.stderr)")
        #expect(diff.stdout.isEmpty)
        // The same file as a baseline is refused before any connection.
        let audit = try await BinaryRunner.run(["audit", "--baseline", new, "--fail-on", "new", "127.0.0.1:1"], timeout: 60)
        #expect(audit.status == 64 && audit.stderr.contains("input lines 1 and 2 both name"), "\(audit.stderr)")
    }

    /// docs/exit-codes.md: a bad input line is 64 whatever else, with --baseline and --fail-on new too.
    @Test func aBadLineIs64WithAndWithoutABaseline() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let refused = try unusedLoopbackPort()
        let input = try directory.write("targets.txt", "127.0.0.1:\(refused)\nhttps://bad host/\n")
        let baseline = directory.path("base.jsonl")
        let first = try await BinaryRunner.run(["audit", "--input", input, "--records", baseline, "--quiet", "--timeout", "3"], timeout: 120)
        #expect(first.status == 64, "\(first.stderr)")
        for extra in [[], ["--baseline", baseline], ["--baseline", baseline, "--fail-on", "new"]] {
            let run = try await BinaryRunner.run(["audit", "--input", input, "--quiet", "--timeout", "3"] + extra, timeout: 120)
            #expect(run.status == 64, "\(extra): \(run.stderr)")
        }
        // report of that run: 64 as the run's, the report complete, and how to go on said once.
        let report = try await BinaryRunner.run(["report", baseline, "--format", "markdown"], timeout: 60)
        #expect(report.status == 64 && report.stdout.hasPrefix("# App Transport Security report"))
        #expect(report.stderr.contains("atsprobe: exit 64: the run had 1 bad input line") && !report.stderr.contains("--fail-on none"), "\(report.stderr)")
        let goOn = try await BinaryRunner.run(["report", baseline, "--format", "markdown", "--quiet", "--fail-on", "none"], timeout: 60)
        #expect(goOn.status == 0 && goOn.stderr.isEmpty, "\(goOn.stderr)")
        let diff = try await BinaryRunner.run(["report", "--diff", baseline, baseline], timeout: 60)
        #expect(diff.status == 64, "NEW holds a bad line: \(diff.stderr)")
    }

    // MARK: item 2

    @Test(arguments: ["2025-02-30", "2025-01-31T25:00:00Z", "2025-01-31T12:61:00Z", "2025-01-31T12:00:00+99:00", "2025-01-31T12:00:00Zjunk", "2025-01-31T12:00:00"])
    func anImpossibleInstantIsRefused(at: String) async throws {
        let result = try await BinaryRunner.run(["diagnose", "--at", at, "127.0.0.1:1"], timeout: 30)
        #expect(result.status == 64 && result.stderr.hasPrefix("atsprobe: --at '\(at)': ") && result.stderr.split(separator: "\n").count == 1,
                "\(result.stderr)")
    }

    @Test func theTextJSONAndReportsShowTheInstantJudged() async throws {
        let host = try LoopbackHost()
        defer { host.stop() }
        let (server, root) = (host.server, host.rootPath)
        let url = "https://127.0.0.1:\(server.port)/"
        let at = "2026-03-01T12:00Z"
        let text = try await BinaryRunner.run(["diagnose", url, "--ca-file", root, "--at", at, "--quiet"], timeout: 120)
        #expect(text.stdout.hasPrefix("Certificates judged at 2026-03-01T12:00:00Z (--at)\n"), "\(text.stdout)")
        let json = try await BinaryRunner.run(["diagnose", url, "--ca-file", root, "--at", at, "--json"], timeout: 120)
        #expect(json.stdout.contains(#""judgedAt" : "2026-03-01T12:00:00Z""#) || json.stdout.contains(#""judgedAt":"2026-03-01T12:00:00Z""#), "\(json.stdout.prefix(600))")
        for format in ["markdown", "html", "text"] {
            let audit = try await BinaryRunner.run(["audit", url, "--ca-file", root, "--at", at, "--quiet", "--format", format], timeout: 120)
            #expect(audit.stdout.contains("2026-03-01T12:00:00Z"), "\(format): \(audit.stdout.prefix(400))")
        }
    }

    // MARK: item 3

    /// SIGINT while an audit writes HTML to an existing file: until the end the old file is whole
    /// (the report goes to a temporary beside it), and after the interrupt the file is the report
    /// of every target that finished, as the --records file lists them.
    @Test func anInterruptedAuditReplacesItsOutputWithWhatFinished() async throws {
        let host = try LoopbackHost()
        defer { host.stop() }
        let (server, root) = (host.server, host.rootPath)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let input = try directory.write("targets.txt", (0..<400).map { "https://127.0.0.1:\(server.port)/\($0)" }.joined(separator: "\n"))
        let output = try directory.write("report.html", "old report\n")
        let records = directory.path("records.jsonl")
        let outcome = try await offCooperativePool { () throws -> (status: Int32?, during: String, finished: Bool) in
            var environment = ProcessInfo.processInfo.environment
            environment["NO_COLOR"] = "1"
            let process = try SpawnedProcess(BinaryRunner.binaryURL.path,
                                             ["audit", "--input", input, "--format", "html", "--output", output, "--records", records,
                                              "--ca-file", root, "--concurrency", "2", "--per-host", "100", "--quiet"], environment: environment)
            // Wait (bounded, 60 s) for a few finished records, by polling the file's size.
            for _ in 0..<600 {
                if let size = try? FileManager.default.attributesOfItem(atPath: records)[.size] as? Int, size > 2_000 { break }
                usleep(100_000)
            }
            let during = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            kill(process.pid, SIGINT)
            let hung = process.finish(within: 30)
            return (hung ? nil : (process.status.map { ($0 >> 8) & 0xFF }), during, !hung)
        }
        #expect(outcome.finished)
        #expect(outcome.during == "old report\n", "the old file stays whole while the run goes on")
        #expect(outcome.status == 130)
        let html = try String(contentsOfFile: output, encoding: .utf8)
        let finished = try String(contentsOfFile: records, encoding: .utf8).split(separator: "\n").count
        #expect(finished > 0 && finished < 400)
        #expect(html.contains("<html") && html.contains("\(finished) target"), "a report of the \(finished) finished targets: \(html.prefix(800))")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.hasPrefix(".atsprobe-") }
        #expect(leftovers.isEmpty, "no temporary left: \(leftovers)")
    }

    // MARK: item 7 and the wildcard

    @Test func aWildcardIsNoServerName() async throws {
        let result = try await BinaryRunner.run(["cert", "/dev/null", "--host", "*.example"], timeout: 30)
        #expect(result.status == 64)
        #expect(result.stderr == "atsprobe: --host '*.example' is a wildcard, not a server name: give the name a client connects to (e.g. www.example)\n", "\(result.stderr)")
    }

    @Test func plistLintTakesQuietAndAWrongFormatNamesTheChoicesInOneLine() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let plist = try directory.write("Info.plist", #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>NSAppTransportSecurity</key><dict/></dict></plist>"#)
        let quiet = try await BinaryRunner.run(["plist", "lint", "-q", plist], timeout: 30)
        #expect(quiet.status == 0 && quiet.stdout.isEmpty && quiet.stderr.isEmpty, "\(quiet.stdout)\(quiet.stderr)")
        let loud = try await BinaryRunner.run(["plist", "lint", plist], timeout: 30)
        #expect(loud.stdout == "0 errors, 0 warnings, 0 info\n", "\(loud.stdout)")
        let format = try await BinaryRunner.run(["audit", "--format", "yaml", "127.0.0.1:1"], timeout: 30)
        #expect(format.status == 64)
        #expect(format.stderr.contains("Please provide one of: text, json, plist, html, csv, markdown, junit, sarif"), "\(format.stderr)")
        #expect(!format.stderr.contains("; -") && format.stderr.split(separator: "\n").count == 1, "\(format.stderr)")
    }

    /// partialFingerprints do not depend on where the file was checked out: the same Info.plist
    /// linted from two checkouts' roots (as CI runs, the path relative to it) gives the same
    /// fingerprints, an app's and its extension's Info.plist different ones (issue 42), and the
    /// log validates.
    @Test func lintFingerprintsAreTheSameInAnotherCheckout() async throws {
        let plist = #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>NSAppTransportSecurity</key><dict><key>NSAllowsArbitraryLoads</key><true/></dict></dict></plist>"#
        var prints: [[String: [String]]] = []
        for _ in 0..<2 {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            var byFile: [String: [String]] = [:]
            for file in ["App/Info.plist", "Ext/Info.plist"] {
                try FileManager.default.createDirectory(atPath: directory.path(String(file.prefix(3))), withIntermediateDirectories: true)
                _ = try directory.write(file, plist)
                let result = try await ChildProcess.run("/bin/sh", ["-c", "cd \"$0\" && exec \"$1\" plist lint \"$2\" --format sarif", directory.url.path,
                                                                    BinaryRunner.binaryURL.path, file], timeout: 30)
                try await PlistFormatsTests.validateSARIF(result.stdout, fixture: try PlistFixture())
                let results = try #require(((jsonObject(result.stdout)?["runs"] as? [[String: Any]])?.first?["results"] as? [[String: Any]]))
                byFile[file] = results.compactMap { ($0["partialFingerprints"] as? [String: String])?["atsprobeFindingHash/v1"] }
            }
            prints.append(byFile)
        }
        #expect(!(prints[0]["App/Info.plist"] ?? []).isEmpty && prints[0] == prints[1], "\(prints)")
        #expect(Set(prints[0]["App/Info.plist"] ?? []).isDisjoint(with: prints[0]["Ext/Info.plist"] ?? []), "an app's and its extension's Info.plist: \(prints)")
    }

    /// A bundle with the intermediate first: said in one line (ORDER), with diagnose's server
    /// lines to serve the full chain leaf first, never silently judged as if in order.
    @Test func aBundleInTheWrongOrderIsSaidWithTheServerFix() async throws {
        let pki = try TestPKI(withIntermediate: true)
        let identity = try pki.issue(CertificateSpec(commonName: "order.test", dnsNames: ["order.test"]))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let root = try pki.writeRootPEM()
        let wrong = try directory.write("wrong.pem", (identity.chainPEM + [identity.certificatePEM]).joined())
        let result = try await BinaryRunner.run(["cert", wrong, "--host", "order.test", "--ca-file", root], timeout: 60)
        #expect(result.stdout.contains("ORDER: the bundle is not leaf first: certificate 0 ("), "\(result.stdout)")
        #expect(result.stdout.contains("Server fix: serve the full chain, the leaf first"), "\(result.stdout)")
        #expect(result.stdout.contains("nginx  : ") && result.stdout.contains("HAProxy: "), "\(result.stdout)")
        let right = try directory.write("right.pem", identity.fullChainPEM)
        let good = try await BinaryRunner.run(["cert", right, "--host", "order.test", "--ca-file", root], timeout: 60)
        #expect(good.status == 0 && !good.stdout.contains("ORDER") && !good.stdout.contains("Server fix"), "\(good.stdout)")
    }

    /// --ca-file with more certificates than any bundle of anchors holds is refused at once.
    @Test func anAnchorFileHasABound() async throws {
        let pki = try TestPKI()
        let root = try String(contentsOfFile: try pki.writeRootPEM(), encoding: .utf8)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let many = try directory.write("many.pem", String(repeating: root, count: 1_001))
        let started = Date()
        let result = try await BinaryRunner.run(["probe", "127.0.0.1:1", "--ca-file", many], timeout: 60)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("more than 1000 certificates"), "\(result.stderr)")
        #expect(Date().timeIntervalSince(started) < 30)
    }
}

import ATSTestServers
import Foundation
import Testing
import TestSupport

/// `report --diff` keeps only what the comparison reads of each record (issue 31: a
/// 20,000-target diff held 956 MB). Two runs of 1,000 targets (a real exception record, ~35 KB,
/// copied with other targets): the diff's peak resident set, as /usr/bin/time measures it, stays
/// near the process's own size. Whole records held 156 MB here (189 MB at 1,500).
@Suite struct DiffMemoryTests {
    @Test func aLargeDiffKeepsOnlyWhatTheComparisonReads() async throws {
        guard let time = try RequiredTool.executable(["/usr/bin/time"], install: "apt-get install time",
                                                     for: "DiffMemoryTests: the diff's peak resident set") else { return }
        let records = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("ATSReportTests/Records/audit.jsonl")
        let lines = try String(contentsOf: records, encoding: .utf8).split(separator: "\n")
        let exception = try #require(lines.first { $0.contains("\"verdict\":\"exception\"") }.map(String.init))
        let template = try #require(try JSONSerialization.jsonObject(with: Data(exception.utf8)) as? [String: Any])
        let files = try TemporaryDirectory(prefix: "atsprobe-diff")
        defer { files.remove() }
        let directory = files.url
        var text = ""
        for index in 0..<1000 {
            var record = template
            var target = try #require(record["target"] as? [String: Any])
            let url = "https://host\(index).example.test/"
            target["url"] = url
            record["target"] = target
            record["input"] = url
            record["line"] = index + 1
            text += String(decoding: try JSONSerialization.data(withJSONObject: record), as: UTF8.self) + "\n"
        }
        let old = directory.appendingPathComponent("old.jsonl").path, new = directory.appendingPathComponent("new.jsonl").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: old))
        try Data(text.utf8).write(to: URL(fileURLWithPath: new))

        let result = try await ChildProcess.run(time, ["-f", "maxrss=%M", BinaryRunner.binaryURL.path, "report", "--diff", old, new], timeout: 300)
        #expect(!result.timedOut)
        #expect(result.status == 0, "nothing got worse: \(result.stderr)")
        #expect(result.stdout.hasPrefix("Compared with \(old): 1000 targets: 0 regressed, 0 new, 0 fixed, 0 changed, 1000 unchanged; 0 got worse\n"),
                "\(result.stdout.prefix(300))")
        let line = try #require(result.stderr.split(separator: "\n").last { $0.hasPrefix("maxrss=") }, "\(result.stderr)")
        let kilobytes = try #require(Int(line.dropFirst("maxrss=".count)))
        #expect(kilobytes < 80 * 1024, "report --diff of 1,000 targets peaked at \(kilobytes) KB")

        // audit --baseline reads its baseline through the same comparison (RunRecords.sides,
        // issue 40 item 12: it held every record, 494 MiB at 20,000 targets where report --diff
        // took 106 MiB). The fixture's run is not this one's (its anchors differ): compared anyway.
        let refused = try unusedLoopbackPort()
        let audit = try await ChildProcess.run(time, ["-f", "maxrss=%M", BinaryRunner.binaryURL.path, "audit", "127.0.0.1:\(refused)", "--baseline", old,
                                                      "--compare-anyway", "--fail-on", "new", "--timeout", "3", "--quiet"], timeout: 300)
        #expect(audit.status == 1, "the one target audited is new and unreachable: \(audit.stderr.suffix(600))")
        let auditLine = try #require(audit.stderr.split(separator: "\n").last { $0.hasPrefix("maxrss=") }, "\(audit.stderr.suffix(600))")
        let auditKilobytes = try #require(Int(auditLine.dropFirst("maxrss=".count)))
        #expect(auditKilobytes < 80 * 1024, "audit --baseline of 1,000 targets peaked at \(auditKilobytes) KB")
        print("DiffMemoryTests: report --diff \(kilobytes) KB, audit --baseline \(auditKilobytes) KB (maxrss, 1,000 targets)")
    }
}

import Foundation
import Testing
import TestSupport

/// Shards merged by the tool (issue 23, item 3): `audit --shard` run as a Kubernetes Indexed Job
/// runs it (docs/audit.md: one process per index, all at once, JOB_COMPLETION_INDEX set in each),
/// then `atsprobe report DIRECTORY` renders one report that equals a single run's.
@Suite struct ShardMergeTests {
    static let shardCount = 3

    @Test func indexedJobShardsCoverEachTargetOnceAndMergeIntoTheSingleRunsReport() async throws {
        try await ReportTests.withMixedServers { fixture, input in
            let directory = try TemporaryDirectory()
            let inputPath = try directory.write("targets.txt", input + "https://[zz]/\n")
            let shards = directory.path("shards")
            try FileManager.default.createDirectory(atPath: shards, withIntermediateDirectories: false)
            let common = ["audit", "--input", inputPath, "--ca-file", fixture.rootPath, "--timeout", "3", "--json", "--fail-on", "none"]
            // The Job's container command (docs/audit.md), with the index the Job sets.
            let script = "exec \"$ATSPROBE\" \"$@\" --shard $((JOB_COMPLETION_INDEX + 1))/\(Self.shardCount)"
                + " > \"$SHARDS/shard-$((JOB_COMPLETION_INDEX + 1)).jsonl\""
            let results = try await withThrowingTaskGroup(of: ChildProcessResult.self) { group in
                for index in 0..<Self.shardCount {
                    var environment = ProcessInfo.processInfo.environment
                    environment["NO_COLOR"] = "1"
                    environment["JOB_COMPLETION_INDEX"] = String(index)
                    environment["ATSPROBE"] = BinaryRunner.binaryURL.path
                    environment["SHARDS"] = shards
                    let job = environment
                    group.addTask { try await ChildProcess.run("/bin/sh", ["-c", script, "sh"] + common, environment: job, timeout: 120) }
                }
                var all: [ChildProcessResult] = []
                for try await result in group { all.append(result) }
                return all
            }
            for result in results { #expect(result.status == 0, "a shard failed: \(result.stderr)") }

            // Exactly once: every input line that is not a comment, in one shard only.
            var covered: [Int] = []
            for index in 1...Self.shardCount {
                let text = try String(contentsOfFile: "\(shards)/shard-\(index).jsonl", encoding: .utf8)
                for line in text.split(separator: "\n") {
                    let record = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                    covered.append(try #require(record["line"] as? Int))
                }
            }
            #expect(covered.sorted() == [1, 2, 4, 5, 6], "lines covered: \(covered.sorted())")

            let single = try await BinaryRunner.run(common, timeout: 120)
            #expect(single.status == 0, "stderr: \(single.stderr)")
            let singlePath = try directory.write("single.jsonl", single.stdout)
            for format in ["csv", "markdown", "html", "text"] {
                let merged = try await BinaryRunner.run(["report", shards, "--format", format], timeout: 60)
                let whole = try await BinaryRunner.run(["report", singlePath, "--format", format], timeout: 60)
                #expect(merged.status == whole.status, "\(format): \(merged.stderr)")
                #expect(merged.stderr == whole.stderr, "the same summary")
                if format == "text" {
                    // A single run's file is in finishing order; both reports are in input order.
                    #expect(merged.stdout == whole.stdout, "text differs")
                } else {
                    // Each shard started on its own: only the run's start and end may differ.
                    #expect(Self.withoutTimes(merged.stdout) == Self.withoutTimes(whole.stdout), "\(format) differs")
                }
            }

            // A shard merged twice holds its targets twice: refused, naming both files.
            let first = try #require(try FileManager.default.contentsOfDirectory(atPath: shards).sorted().first {
                ((try? String(contentsOfFile: "\(shards)/\($0)", encoding: .utf8)) ?? "").isEmpty == false
            })
            try FileManager.default.copyItem(atPath: "\(shards)/\(first)", toPath: "\(shards)/again.jsonl")
            let twice = try await BinaryRunner.run(["report", shards, "--format", "csv"], timeout: 60)
            #expect(twice.status == 64)
            #expect(twice.stdout.isEmpty)
            #expect(twice.stderr.contains("again.jsonl") && twice.stderr.contains(first) && twice.stderr.contains("both hold"),
                    "stderr: \(twice.stderr)")
            #expect(twice.stderr.split(separator: "\n").count == 1)
        }
    }

    /// The report without its "Started" and "Ended" rows.
    static func withoutTimes(_ report: String) -> [Substring] {
        report.split(separator: "\n").filter { !$0.contains("Started") && !$0.contains("Ended") }
    }
}

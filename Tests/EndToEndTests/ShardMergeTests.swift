import Foundation
import Testing
import TestSupport

/// Shards merged by the tool (issue 23, item 3): `audit --shard auto/N` run as a Kubernetes Indexed
/// Job runs it (issue 41; docs/audit.md: one process per index, all at once, JOB_COMPLETION_INDEX set in each),
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
            // The Job's container args (docs/examples/k8s/audit-indexed-job.yaml): no shell, the
            // index read by `--shard auto/N` from the variable the Job sets.
            let results = try await withThrowingTaskGroup(of: ChildProcessResult.self) { group in
                for index in 0..<Self.shardCount {
                    var environment = ProcessInfo.processInfo.environment
                    environment["NO_COLOR"] = "1"
                    environment["JOB_COMPLETION_INDEX"] = String(index)
                    let job = environment
                    let arguments = common + ["--shard", "auto/\(Self.shardCount)", "--output", "\(shards)/shard-\(index).jsonl"]
                    group.addTask { try await ChildProcess.run(BinaryRunner.binaryURL.path, arguments, environment: job, timeout: 120) }
                }
                var all: [ChildProcessResult] = []
                for try await result in group { all.append(result) }
                return all
            }
            for result in results { #expect(result.status == 0, "a shard failed: \(result.stderr)") }

            // Exactly once: every input line that is not a comment, in one shard only.
            var covered: [Int] = []
            for index in 0..<Self.shardCount {
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

    /// `--shard auto/N` outside an Indexed Job, or with an index past N: 64, one line, before any connection.
    @Test func autoShardWithoutTheJobsIndexIsBadInput() async throws {
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        environment.removeValue(forKey: "JOB_COMPLETION_INDEX")
        let arguments = ["audit", "https://127.0.0.1:1/", "--shard", "auto/3"]
        let unset = try await ChildProcess.run(BinaryRunner.binaryURL.path, arguments, environment: environment, timeout: 60)
        #expect(unset.status == 64)
        #expect(unset.stderr == "atsprobe: --shard auto/3 takes K from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job sets it, 0-based), which is not set\n",
                "stderr: \(unset.stderr)")
        environment["JOB_COMPLETION_INDEX"] = "3"
        let past = try await ChildProcess.run(BinaryRunner.binaryURL.path, arguments, environment: environment, timeout: 60)
        #expect(past.status == 64)
        #expect(past.stderr == "atsprobe: --shard auto/3: JOB_COMPLETION_INDEX is '3', not an index from 0 to 2\n", "stderr: \(past.stderr)")
        #expect(unset.stdout.isEmpty && past.stdout.isEmpty)
    }

    /// The report without its "Started" and "Ended" rows.
    static func withoutTimes(_ report: String) -> [Substring] {
        report.split(separator: "\n").filter { !$0.contains("Started") && !$0.contains("Ended") }
    }
}

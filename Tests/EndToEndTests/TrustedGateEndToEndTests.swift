import ATSTestServers
import Foundation
import Testing
import TestSupport

/// Issue 42 through the binary: a baseline recorded under other options, or newer, is refused
/// (64, one line with the command that records a comparable one) unless --compare-anyway, which
/// every format then says; a missing baseline names that command; --fail-on absent; a target
/// named twice refused by its input lines; a compact baseline compares as the full one; report's
/// 64 said with -q, without a way around the gate. Targets are refused loopback ports: nothing
/// is judged but what the gate reads.
@Suite struct TrustedGateEndToEndTests {
    /// `audit` of `targets` (one input file) with `options`, its records at `records`.
    static func record(_ directory: TemporaryDirectory, _ name: String, targets: [String], options: [String] = []) async throws -> String {
        let input = try directory.write("\(name).txt", targets.joined(separator: "\n") + "\n")
        let records = directory.path("\(name).jsonl")
        let run = try await BinaryRunner.run(["audit", "--input", input, "--records", records, "--quiet", "--timeout", "3", "--fail-on", "none"] + options, timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        return records
    }

    @Test func aBaselineRecordedUnderOtherOptionsOrLaterIsRefusedUnlessComparedAnyway() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fixture = try ExceptionFixture()
        let target = "127.0.0.1:\(try unusedLoopbackPort())"
        let cases: [(String, [String], [String], String)] = [
            ("at", ["--at", "2027-12-31"], [], "the instant certificates are judged at: the baseline's 2027-12-31T00:00:00Z (--at), this run's when it ran"),
            ("ca", [], ["--ca-file", fixture.rootPath], "the anchors: the baseline's trust store holds other roots"),
            ("rules", ["--rules", "documented"], [], "the rule set: the baseline's documented, this run's ios26 (--rules)"),
        ]
        for (name, baselineOptions, runOptions, difference) in cases {
            let baseline = try await Self.record(directory, "base-\(name)", targets: [target], options: baselineOptions)
            let new = try await Self.record(directory, "new-\(name)", targets: [target], options: runOptions)
            let diff = try await BinaryRunner.run(["report", "--diff", baseline, new], timeout: 60)
            #expect(diff.status == 64 && diff.stdout.isEmpty, "\(name): \(diff.status) \(diff.stdout)")
            #expect(diff.stderr.split(separator: "\n").count == 1 && diff.stderr.contains(difference), "\(name): \(diff.stderr)")
            #expect(diff.stderr.contains("Record a comparable baseline with this run's options: atsprobe audit --input \(directory.path("new-\(name).txt"))"), "\(diff.stderr)")
            // audit --baseline refuses it before any connection.
            let audit = try await BinaryRunner.run(["audit", target, "--baseline", baseline, "--fail-on", "new", "--timeout", "3"] + runOptions, timeout: 60)
            #expect(audit.status == 64 && audit.stderr.contains(difference), "\(name): \(audit.stderr)")
            #expect(audit.stderr.split(separator: "\n").count == 1, "\(audit.stderr)")
        }
        // OLD and NEW swapped: OLD started after NEW.
        let first = try await Self.record(directory, "first", targets: [target])
        try await Task.sleep(for: .milliseconds(1100))  // whole seconds: the second run starts a second later
        let second = try await Self.record(directory, "second", targets: [target])
        let swapped = try await BinaryRunner.run(["report", "--diff", second, first], timeout: 60)
        #expect(swapped.status == 64 && swapped.stderr.contains("the order: the baseline started at"), "\(swapped.stderr)")
        #expect(try await BinaryRunner.run(["report", "--diff", first, second], timeout: 60).status == 0)
        // --compare-anyway: compared, and every format says so first.
        let old = directory.path("base-rules.jsonl"), new = directory.path("new-rules.jsonl")
        let expectations: [(String, (String) -> Bool)] = [
            ("text", { $0.hasPrefix("NOT COMPARABLE, compared anyway (--compare-anyway): the rule set") }),
            ("markdown", { $0.hasPrefix("> **Not comparable: compared anyway**") }),
            ("json", { $0.contains("\"notComparable\"") }),
            ("junit", { $0.contains("<testcase name=\"baseline is comparable\"") && $0.contains("<skipped message=\"NOT COMPARABLE") }),
            ("sarif", { $0.contains("\"toolExecutionNotifications\"") && $0.contains("NOT COMPARABLE") }),
        ]
        for (format, said) in expectations {
            let anyway = try await BinaryRunner.run(["report", "--diff", old, new, "--compare-anyway", "--format", format], timeout: 60)
            #expect(anyway.status == 0 && said(anyway.stdout), "\(format): \(anyway.status) \(anyway.stdout.prefix(600))")
            #expect(anyway.stderr.contains("NOT COMPARABLE"), "\(format): \(anyway.stderr)")
        }
    }

    @Test func aMissingBaselineSaysTheCommandThatRecordsIt() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let input = try directory.write("targets.txt", "127.0.0.1:\(try unusedLoopbackPort())\n")
        let missing = directory.path("baseline.jsonl")
        let audit = try await BinaryRunner.run(["audit", "--input", input, "--baseline", missing, "--fail-on", "new", "--rules", "documented"], timeout: 60)
        #expect(audit.status == 64, "\(audit.stderr)")
        #expect(audit.stderr == "atsprobe: --baseline '\(missing)': no such file; record the first baseline with this run's options: "
                + "atsprobe audit --input \(input) --rules documented --records \(missing)\n", "\(audit.stderr)")
    }

    @Test func failOnAbsentFailsWhenABaselineTargetIsRemovedOrCommentedOut() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let a = "127.0.0.1:\(try unusedLoopbackPort())", b = "127.0.0.1:\(try unusedLoopbackPort())"
        let baseline = try await Self.record(directory, "base", targets: [a, b])
        let input = try directory.write("targets.txt", "\(a)\n# \(b)\n")
        let new = try await BinaryRunner.run(["audit", "--input", input, "--baseline", baseline, "--fail-on", "new", "--timeout", "3", "--records", directory.path("new.jsonl")], timeout: 120)
        #expect(new.status == 0, "nothing got worse: \(new.stderr)")
        let absent = try await BinaryRunner.run(["audit", "--input", input, "--baseline", baseline, "--fail-on", "absent", "--timeout", "3"], timeout: 120)
        #expect(absent.status == 1 && absent.stdout.contains("ABSENT       https://\(b)"), "\(absent.status) \(absent.stdout)\(absent.stderr)")
        let diff = try await BinaryRunner.run(["report", "--diff", baseline, directory.path("new.jsonl"), "--fail-on", "absent"], timeout: 60)
        #expect(diff.status == 1 && diff.stdout.contains("ABSENT"), "\(diff.status) \(diff.stdout)")
        #expect(try await BinaryRunner.run(["report", "--diff", baseline, directory.path("new.jsonl")], timeout: 60).status == 0)
        // An emptied input: audit --baseline and report --diff give one answer (every target absent).
        let empty = try directory.write("empty.txt", "# nothing left\n")
        let emptied = try await BinaryRunner.run(["audit", "--input", empty, "--baseline", baseline, "--fail-on", "absent", "--timeout", "3",
                                                  "--records", directory.path("empty.jsonl")], timeout: 60)
        #expect(emptied.status == 1, "\(emptied.stderr)")
        let emptiedDiff = try await BinaryRunner.run(["report", "--diff", baseline, directory.path("empty.jsonl"), "--fail-on", "absent"], timeout: 60)
        #expect(emptiedDiff.status == 1 && emptiedDiff.stdout.contains("2 in the baseline not audited"), "\(emptiedDiff.stdout)\(emptiedDiff.stderr)")
    }

    @Test func aTargetNamedTwiceIsRefusedByItsInputLines() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let target = "127.0.0.1:\(try unusedLoopbackPort())"
        let input = try directory.write("targets.txt", "\(target)\n# a comment\n\(target)\n")
        let records = directory.path("run.jsonl")
        let audit = try await BinaryRunner.run(["audit", "--input", input, "--timeout", "3", "--quiet", "--records", records], timeout: 120)
        #expect(audit.status == 64, "\(audit.stderr)")
        #expect(audit.stderr.contains("atsprobe: line 3: names 'https://\(target)") && audit.stderr.contains("as line 1 does: a run audits each target once; remove one of the lines"), "\(audit.stderr)")
        // Its records hold the target once and the refused line apart: report --diff reads them.
        let diff = try await BinaryRunner.run(["report", "--diff", records, records], timeout: 60)
        #expect(diff.status == 64 && diff.stderr.contains("bad input line"), "NEW holds a bad line: \(diff.stderr)")
    }

    @Test func aCompactBaselineComparesAsTheFullRecordsAndAcceptMovesOneTarget() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let a = "127.0.0.1:\(try unusedLoopbackPort())", b = "127.0.0.1:\(try unusedLoopbackPort())"
        let full = try await Self.record(directory, "full", targets: [a, b])
        let compact = directory.path("compact.jsonl")
        let written = try await BinaryRunner.run(["report", "--baseline-of", full, "--output", compact], timeout: 60)
        #expect(written.status == 0, "\(written.stderr)")
        let size = try FileManager.default.attributesOfItem(atPath: compact)[.size] as? Int ?? 0
        #expect(size < 2 * 2048 + 2048, "two targets and the run's line: \(size) bytes")
        let new = try await Self.record(directory, "new", targets: [a])
        for format in ["text", "json", "markdown", "junit", "sarif"] {
            let fromFull = try await BinaryRunner.run(["report", "--diff", full, new, "--format", format, "--fail-on", "absent"], timeout: 60)
            let fromCompact = try await BinaryRunner.run(["report", "--diff", compact, new, "--format", format, "--fail-on", "absent"], timeout: 60)
            #expect(fromFull.status == 1 && fromCompact.status == 1, "\(format): \(fromFull.stderr)\(fromCompact.stderr)")
            #expect(fromFull.stdout.replacingOccurrences(of: full, with: "BASE") == fromCompact.stdout.replacingOccurrences(of: compact, with: "BASE"), "\(format)")
        }
        // --accept b (removed on purpose): the baseline moves forward for b alone.
        let moved = try await BinaryRunner.run(["report", "--baseline-of", new, "--update", compact, "--accept", b, "--output", compact], timeout: 60)
        #expect(moved.status == 0, "\(moved.stderr)")
        let after = try await BinaryRunner.run(["report", "--diff", compact, new, "--fail-on", "absent"], timeout: 60)
        #expect(after.status == 0 && !after.stdout.contains("ABSENT"), "\(after.stdout)\(after.stderr)")
    }

    @Test func reportSaysItsOneLineErrorWithQuietAndNeverSuggestsTurningTheGateOff() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let input = try directory.write("targets.txt", "https://bad host/\n127.0.0.1:\(try unusedLoopbackPort())\n")
        let records = directory.path("run.jsonl")
        _ = try await BinaryRunner.run(["audit", "--input", input, "--records", records, "--quiet", "--timeout", "3"], timeout: 120)
        let quiet = try await BinaryRunner.run(["report", records, "-q", "--format", "markdown"], timeout: 60)
        #expect(quiet.status == 64 && quiet.stderr.split(separator: "\n").count == 1 && quiet.stderr.hasPrefix("atsprobe: exit 64: the run had 1 bad input line"), "\(quiet.stderr)")
        #expect(!quiet.stderr.contains("--fail-on none"), "\(quiet.stderr)")
        // --fail-on expiring:D reads a forecast: without one, report and report --diff say what it takes.
        let unforecast = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("ATSReportTests/Records/audit.jsonl").path
        for arguments in [["report", unforecast], ["report", "--diff", unforecast, unforecast]] {
            let expiring = try await BinaryRunner.run(arguments + ["--fail-on", "expiring:30d"], timeout: 60)
            #expect(expiring.status == 64 && expiring.stderr.contains("reads the run's forecast") && expiring.stderr.contains("audit --forecast 2592000s"),
                    "\(arguments): \(expiring.stderr)")
        }
    }
}

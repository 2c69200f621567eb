import ATSTestServers
import Foundation
import Testing
import TestSupport
import TLSFacts

/// `atsprobe audit` end to end: the built binary against loopback servers started here.
@Suite struct AuditTests {
    /// One JSON Lines record, decoded loosely: only what the assertions need.
    struct Record: Decodable {
        var kind: String
        var verdict: String
        var input: String
        var line: Int?
        var message: String?
        var target: TargetName?
        struct TargetName: Decodable { var url: String }
    }

    static func records(_ stdout: String) throws -> [Record] {
        try stdout.split(separator: "\n").map { try JSONDecoder().decode(Record.self, from: Data($0.utf8)) }
    }

    /// Starts every server, runs `body`, and stops them all, on failure too.
    static func withServers<T>(_ start: () throws -> [(String, () -> Void)], _ body: ([String]) async throws -> T) async throws -> T {
        var started: [(String, () -> Void)] = []
        defer { for (_, stop) in started { stop() } }
        started = try start()
        return try await body(started.map(\.0))
    }

    @Test func auditOfManyServersReportsEachOnceWithItsVerdict() async throws {
        let pki = try TestPKI()
        let root = try pki.writeRootPEM()
        let identity = try pki.issue(CertificateSpec())
        // Static RSA needs an RSA key; TLS 1.0 signs with SHA-1, which an ECDSA key cannot do at the probe's security level.
        let rsaIdentity = try pki.issue(CertificateSpec(key: .rsa(bits: 2048)))
        let expired = try pki.issue(CertificateSpec(notBefore: Date(timeIntervalSinceNow: -400 * 86_400),
                                                    notAfter: Date(timeIntervalSinceNow: -10 * 86_400)))
        let refusedPort = try unusedLoopbackPort()
        // (input line, expected verdict), in input order.
        var expected: [(String, String)] = []
        try await Self.withServers({
            func tls(_ configuration: TLSServerConfiguration, _ verdict: String) throws -> (String, () -> Void) {
                let server = try TestTLSServer.start(configuration)
                expected.append(("https://127.0.0.1:\(server.port)/", verdict))
                return (expected.last!.0, server.stop)
            }
            func hostile(_ behavior: HostileBehavior, _ verdict: String) throws -> (String, () -> Void) {
                let server = try HostileServer.start(behavior)
                expected.append(("127.0.0.1:\(server.port)", verdict))
                return (expected.last!.0, server.stop)
            }
            var servers = [
                try tls(TLSServerConfiguration(identity: identity), "pass"),
                try tls(TLSServerConfiguration(identity: identity, minVersion: .tls12, maxVersion: .tls12), "pass"),
                try tls(TLSServerConfiguration(identity: rsaIdentity, minVersion: .tls10, maxVersion: .tls10), "exception"),
                try tls(TLSServerConfiguration(identity: rsaIdentity, minVersion: .tls12, maxVersion: .tls12,
                                               cipherList: "AES128-GCM-SHA256:AES256-GCM-SHA384"), "exception"),
                try tls(TLSServerConfiguration(identity: expired), "no-exception"),
                try hostile(.resetOnAccept, "unreachable"),
                try hostile(.plainHTTP, "unreachable"),
                try hostile(.garbage, "unreachable"),
            ]
            expected.append(("127.0.0.1:\(refusedPort)", "unreachable"))
            servers.append((expected.last!.0, {}))
            return servers
        }) { _ in
            let input = expected.map(\.0).joined(separator: "\n") + "\n"
            let result = try await BinaryRunner.run(["audit", "--json", "--input", "-", "--ca-file", root, "--timeout", "3", "--rules", "documented",
                                               "--per-host", "16"], timeout: 120, stdin: input)
            #expect(!result.timedOut)
            #expect(result.status == 2, "stderr: \(result.stderr)")
            let records = try Self.records(result.stdout)
            #expect(records.count == expected.count)
            for (index, (text, verdict)) in expected.enumerated() {
                let matching = records.filter { $0.input == text }
                #expect(matching.count == 1, "\(text) appears \(matching.count) times")
                #expect(matching.first?.verdict == verdict, "\(text): \(matching.first?.verdict ?? "missing"), expected \(verdict)")
                #expect(matching.first?.line == index + 1)
                #expect(matching.first?.kind == "result")
            }
            #expect(result.stderr.contains("\(expected.count) targets"))
        }
    }

    @Test func badLinesAreReportedWithTheirNumbersAndTheRestGoOn() async throws {
        let refused = try unusedLoopbackPort()
        let input = """
        # a comment, then a blank line

        127.0.0.1:\(refused)
        bad_host!name
        127.0.0.1:99999
          # an indented comment
        ftp://127.0.0.1/
        https://127.0.0.1:\(refused)/path  # a trailing comment, as `diagnose --input` takes it

        """
        let result = try await BinaryRunner.run(["audit", "--json", "--input", "-", "--timeout", "2"], timeout: 60, stdin: input)
        #expect(!result.timedOut)
        #expect(result.status == 64)
        let records = try Self.records(result.stdout)
        let errors = records.filter { $0.kind == "error" }
        #expect(errors.map(\.line) == [4, 5, 7])
        #expect(errors.map(\.input) == ["bad_host!name", "127.0.0.1:99999", "ftp://127.0.0.1/"])
        #expect(errors.allSatisfy { $0.verdict == "error" && $0.message?.isEmpty == false })
        let results = records.filter { $0.kind == "result" }
        #expect(results.compactMap(\.line).sorted() == [3, 8])
        #expect(results.first { $0.line == 8 }?.input == "https://127.0.0.1:\(refused)/path")
        #expect(results.allSatisfy { $0.verdict == "unreachable" })
        for line in [4, 5, 7] { #expect(result.stderr.contains("atsprobe: line \(line): "), "stderr: \(result.stderr)") }
        #expect(result.stderr.contains("line 4: invalid target 'bad_host!name'"))
        // --fail-on unreachable ignores nothing here: bad lines still fail the run.
        let narrowed = try await BinaryRunner.run(["audit", "--json", "--input", "-", "--timeout", "2", "--fail-on", "none"],
                                            timeout: 60, stdin: input)
        #expect(narrowed.status == 0)
        #expect(try Self.records(narrowed.stdout).count == 5)
    }

    @Test func failOnChoosesWhichFindingsFailTheRun() async throws {
        let refused = try unusedLoopbackPort()
        for (failOn, status) in [("any", Int32(2)), ("unreachable", 2), ("exception", 0), ("none", 0)] {
            let result = try await BinaryRunner.run(["audit", "--json", "--timeout", "2", "--fail-on", failOn, "127.0.0.1:\(refused)"], timeout: 60)
            #expect(result.status == status, "--fail-on \(failOn): \(result.stderr)")
        }
    }

    @Test func shardsPartitionTheInputExactly() async throws {
        // Refused ports answer at once; bad lines cost nothing. Both kinds must be shared out.
        var lines: [String] = []
        for index in 0..<24 {
            lines.append(index % 4 == 3 ? "bad_host_\(index)!" : "127.0.0.1:\(try unusedLoopbackPort())")
        }
        let input = lines.joined(separator: "\n") + "\n"
        var seen: [Int: Int] = [:]
        for k in 1...3 {
            let result = try await BinaryRunner.run(["audit", "--json", "--input", "-", "--timeout", "2", "--fail-on", "none",
                                               "--shard", "\(k)/3"], timeout: 120, stdin: input)
            #expect(!result.timedOut)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            for record in try Self.records(result.stdout) {
                let line = try #require(record.line)
                #expect(record.input == lines[line - 1])
                seen[line, default: 0] += 1
            }
        }
        #expect(seen.keys.sorted() == Array(1...lines.count))
        #expect(seen.values.allSatisfy { $0 == 1 }, "lines audited by more than one shard: \(seen.filter { $0.value > 1 })")
        let bad = try await BinaryRunner.run(["audit", "--shard", "4/3", "127.0.0.1:1"], timeout: 30)
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--shard '4/3'"))
    }

    @Test func aTargetPastItsDeadlineIsReportedAsTimedOutWithoutDelayingOthers() async throws {
        let silent = try HostileServer.start(.silent)
        defer { silent.stop() }
        let refused = try unusedLoopbackPort()
        // The connection timeout (60 s) is far beyond the deadline (1 s): finishing well before it
        // proves the deadline ended the target, even on a loaded machine (CI shares two cores).
        let result = try await BinaryRunner.run(["audit", "--json", "--deadline", "1", "--timeout", "60",
                                           "127.0.0.1:\(silent.port)", "127.0.0.1:\(refused)"], timeout: 120)
        #expect(!result.timedOut)
        #expect(result.elapsedSeconds < 45)
        #expect(result.status == 2)
        let records = try Self.records(result.stdout)
        #expect(records.map(\.verdict) == ["unreachable", "timeout"], "the quick target comes out first")
        #expect(records.last?.kind == "timeout")
        #expect(records.last?.target?.url == "https://127.0.0.1:\(silent.port)/")
        #expect(records.allSatisfy { $0.line == nil })
    }

    @Test func perHostLimitSerialisesOneHostsTargets() async throws {
        // Two silent servers on one host, one at a time: the second starts only when the
        // first's 1-second deadline has passed, so the run cannot end before 2 seconds.
        let first = try HostileServer.start(.silent)
        defer { first.stop() }
        let second = try HostileServer.start(.silent)
        defer { second.stop() }
        let result = try await BinaryRunner.run(["audit", "--json", "--per-host", "1", "--deadline", "1", "--timeout", "60",
                                                 "127.0.0.1:\(first.port)", "127.0.0.1:\(second.port)"], timeout: 120)
        let elapsed = result.elapsedSeconds
        #expect(try Self.records(result.stdout).map(\.verdict) == ["timeout", "timeout"])
        #expect(elapsed >= 2, "took \(elapsed) s")
        #expect(elapsed < 45, "the deadline, not the 60 s timeout, must end each target")
    }

    @Test func aBusyHostDoesNotHoldSlotsAnotherHostCouldUse() async throws {
        // Two slots in all, one per host. Three silent targets on 127.0.0.1 take one slot and
        // wait for it in turn; the [::1] target must get the other slot at once, so its quick
        // result comes out first, not after the first 1-second deadline.
        let silent = try HostileServer.start(.silent)
        defer { silent.stop() }
        let refused = try unusedLoopbackPort()
        let result = try await BinaryRunner.run(["audit", "--json", "--concurrency", "2", "--per-host", "1", "--deadline", "1",
                                                 "--timeout", "60"] + (1...3).map { "https://127.0.0.1:\(silent.port)/\($0)" }
                                                + ["[::1]:\(refused)"], timeout: 120)
        let records = try Self.records(result.stdout)
        #expect(records.map(\.verdict) == ["unreachable", "timeout", "timeout", "timeout"], "\(result.stdout)")
        #expect(records.first?.target?.url == "https://[::1]:\(refused)/")
        #expect(result.status == 2)
    }

    @Test func rateSpacesTheStarts() async throws {
        let refused = try unusedLoopbackPort()
        let started = Date()
        // Five starts at 4 per second: the last starts a second after the first.
        let result = try await BinaryRunner.run(["audit", "--json", "--rate", "4", "--timeout", "2", "--per-host", "8"]
                                                + (1...5).map { "https://127.0.0.1:\(refused)/\($0)" }, timeout: 60)
        #expect(try Self.records(result.stdout).count == 5)
        #expect(Date().timeIntervalSince(started) >= 1)
        let bad = try await BinaryRunner.run(["audit", "--rate", "0", "127.0.0.1:1"], timeout: 30)
        #expect(bad.status == 64)
    }

    @Test func plistMergesTheExceptionsOfEveryTarget() async throws {
        let pki = try TestPKI()
        let root = try pki.writeRootPEM()
        let rsa = try pki.issue(CertificateSpec(key: .rsa(bits: 2048)))
        let old = try TestTLSServer.start(TLSServerConfiguration(identity: rsa, minVersion: .tls10, maxVersion: .tls10))
        defer { old.stop() }
        let staticRSA = try TestTLSServer.start(TLSServerConfiguration(identity: rsa, minVersion: .tls12, maxVersion: .tls12,
                                                                       cipherList: "AES128-GCM-SHA256"))
        defer { staticRSA.stop() }
        let result = try await BinaryRunner.run(["audit", "--format", "plist", "--ca-file", root, "--timeout", "3", "--rules", "documented",
                                           "127.0.0.1:\(old.port)", "127.0.0.1:\(staticRSA.port)"], timeout: 120)
        #expect(result.status == 1, "stderr: \(result.stderr)")
        let plist = try PropertyListSerialization.propertyList(from: Data(result.stdout.utf8), format: nil) as? [String: Any]
        let ats = plist?["NSAppTransportSecurity"] as? [String: Any]
        let domains = ats?["NSExceptionDomains"] as? [String: Any]
        let entry = domains?["127.0.0.1"] as? [String: Any]
        #expect(domains?.count == 1)
        #expect(entry?["NSExceptionMinimumTLSVersion"] as? String == "TLSv1.0")
        #expect(entry?["NSExceptionRequiresForwardSecrecy"] as? Bool == false)
        #expect(result.stderr.contains("NSExceptionMinimumTLSVersion: 1 target"))
    }

    @Test func tenThousandLinesStreamTheFirstResultAtOnce() async throws {
        let refused = try unusedLoopbackPort()
        let files = try TemporaryDirectory(prefix: "atsprobe-audit")
        defer { files.remove() }
        let path = files.path("hosts.txt")
        let body = (0..<10_000).map { $0 % 2 == 0 ? "127.0.0.1:\(refused)" : "bad host \($0)" }.joined(separator: "\n")
        try body.write(toFile: path, atomically: true, encoding: .utf8)

        let started = Date()
        let process = try SpawnedProcess(BinaryRunner.binaryURL.path, ["audit", "--json", "--input", path, "--timeout", "2"],
                                         environment: ProcessInfo.processInfo.environment, discardStderr: true)
        defer { process.finish(within: 0) }
        let line = process.firstStdoutLine(within: 10)
        #expect(line != nil, "no result within 10 s")
        #expect(Date().timeIntervalSince(started) < 5)
        let record = try JSONDecoder().decode(Record.self, from: Data((line ?? "").utf8))
        #expect(record.line == 1 || record.line == 2)
    }

    @Test func aLineOnAnOpenPipeIsAuditedBeforeTheInputEnds() async throws {
        let refused = try unusedLoopbackPort()
        let process = try SpawnedProcess(BinaryRunner.binaryURL.path, ["audit", "--json", "--input", "-", "--timeout", "2"],
                                         environment: ProcessInfo.processInfo.environment, discardStderr: true)
        defer { process.finish(within: 0) }
        process.writeStdin("127.0.0.1:\(refused)\n")
        // Standard input stays open: the result must not wait for its end.
        let line = process.firstStdoutLine(within: 10)
        #expect(line != nil, "no result while the input is still open")
        #expect(try JSONDecoder().decode(Record.self, from: Data((line ?? "").utf8)).verdict == "unreachable")
    }
}

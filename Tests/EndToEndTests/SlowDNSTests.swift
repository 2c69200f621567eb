import ATSTestServers
import Foundation
import Testing
import TestSupport
import TLSFacts

/// Issue 23: names that are slow to fail must not cost healthy targets. The binary resolves
/// through a DNS server this test starts on 127.0.0.1 (`--dns-servers`), never resolv.conf.
@Suite(.serialized) struct SlowDNSTests {
    static let timeout = 5.0

    /// One JSON Lines record, as far as these tests read it.
    struct Record: Decodable {
        var kind: String
        var verdict: String
        var target: Target?
        struct Target: Decodable { var host: String }
    }

    struct Run {
        var records: [Record]
        var stdout: String
        var seconds: Double
        var status: Int32
    }

    static func audit(_ targets: [String], dns: LoopbackDNSServer, root: String) async throws -> Run {
        let result = try await BinaryRunner.run(["audit", "--format", "json", "--timeout", String(Int(timeout)),
                                                 "--dns-servers", dns.address, "--ca-file", root] + targets, timeout: 120)
        let seconds = result.elapsedSeconds
        let records = try result.stdout.split(separator: "\n").map { try JSONDecoder().decode(Record.self, from: Data($0.utf8)) }
        return Run(records: records, stdout: result.stdout, seconds: seconds, status: result.status)
    }

    /// 30 healthy names and 3 (10%) that never answer: every healthy target is audited, each
    /// slow one says "name not resolved within N s" (N at most 5), and the run ends within the healthy run's
    /// wall time plus one resolver deadline (with 2 s for a loaded machine).
    @Test func slowNamesCostNoHealthyTarget() async throws {
        let pki = try TestPKI()
        let root = try pki.writeRootPEM()
        let identity = try pki.issue(CertificateSpec(commonName: "ok.example.test", dnsNames: ["*.example.test"]))
        var names: [String: LoopbackDNSServer.Behavior] = [:]
        for index in 0..<30 { names["ok-\(index).example.test"] = .answer(v4: ["127.0.0.1"]) }
        for index in 0..<3 { names["slow-\(index).example.test"] = .never }
        let dns = try LoopbackDNSServer(names: names)
        defer { dns.stop() }
        try await TestTLSServer.serving(TLSServerConfiguration(identity: identity)) { tls in
            let healthy = (0..<30).map { "ok-\($0).example.test:\(tls.port)" }
            let slow = (0..<3).map { "slow-\($0).example.test:\(tls.port)" }
            let alone = try await Self.audit(healthy, dns: dns, root: root)
            #expect(alone.records.count == 30)
            #expect(alone.records.allSatisfy { $0.verdict != "unreachable" && $0.verdict != "timeout" }, "\(alone.stdout.prefix(2000))")
            // The slow names first, where they used to take the resolver threads.
            let mixed = try await Self.audit(slow + healthy, dns: dns, root: root)
            let lost = mixed.records.filter { ($0.target?.host ?? "").hasPrefix("ok-") && ["unreachable", "timeout"].contains($0.verdict) }
            #expect(mixed.records.count == 33)
            #expect(lost.isEmpty, "healthy targets lost: \(lost.compactMap(\.target?.host))")
            // Exactly the three slow names are unreachable (no healthy one is, above).
            #expect(mixed.records.filter { $0.verdict == "unreachable" }.count == 3)
            // N is the time the lookup waited: the probe's deadline began before it (a handshake
            // slot, the TLS context), so on a loaded machine it reads 4.7 s rather than 5 s.
            let waited = mixed.stdout.components(separatedBy: "name not resolved within ").dropFirst()
                .map { Double($0.prefix { $0 != " " }) ?? -1 }
            #expect(!waited.isEmpty && waited.allSatisfy { $0 > Self.timeout / 2 && $0 <= Self.timeout }, "\(waited)")
            #expect(!mixed.stdout.contains("does not exist"))
            #expect(mixed.seconds <= alone.seconds + Self.timeout + 2,
                    "healthy alone \(alone.seconds) s, with slow names \(mixed.seconds) s")
        }
    }

    /// Garbage, truncated and lying answers, NXDOMAIN and SERVFAIL beside a healthy name: the
    /// run ends in time with one record each, the healthy one audited.
    @Test func hostileDNSAnswersNeverCrashOrHang() async throws {
        let pki = try TestPKI()
        let root = try pki.writeRootPEM()
        let identity = try pki.issue(CertificateSpec(commonName: "ok.example.test", dnsNames: ["*.example.test"]))
        let dns = try LoopbackDNSServer(names: [
            "ok.example.test": .answer(v4: ["127.0.0.1"]),
            "garbage.example.test": .garbage,
            "cut.example.test": .cutShort(v4: ["127.0.0.1"]),
            "liar.example.test": .lyingCounts,
            "big.example.test": .truncated(v4: ["127.0.0.1"]),
            "broken.example.test": .servfail(),
        ])
        defer { dns.stop() }
        try await TestTLSServer.serving(TLSServerConfiguration(identity: identity)) { tls in
            let hosts = ["garbage", "cut", "liar", "big", "broken", "gone", "ok"]
            let run = try await Self.audit(hosts.map { "\($0).example.test:\(tls.port)" }, dns: dns, root: root)
            #expect([0, 1, 2].contains(run.status), "exit \(run.status)")
            #expect(Set(run.records.compactMap { $0.target?.host.components(separatedBy: ".").first }) == Set(hosts))
            let verdicts = Dictionary(run.records.map { ($0.target?.host ?? "", $0.verdict) }, uniquingKeysWith: { a, _ in a })
            #expect(verdicts["ok.example.test"] == "pass")
            #expect(verdicts["big.example.test"] == "pass", "truncated over UDP, answered over TCP")
            #expect(verdicts["gone.example.test"] == "unreachable")
            #expect(run.stdout.contains("gone.example.test does not exist (NXDOMAIN)"))
            #expect(run.stdout.contains("SERVFAIL"))
            #expect(run.seconds < 60)
        }
    }

    @Test func badDNSServerListsAreBadInput() async throws {
        for value in ["", "example.com", "127.0.0.1:0", "127.0.0.1:70000", "[::1", "1.2.3.4,,"] {
            let result = try await BinaryRunner.run(["probe", "--dns-servers", value, "127.0.0.1:1"], timeout: 30)
            #expect(result.status == 64, "\(value): exit \(result.status)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains("--dns-servers"), "\(value): \(result.stderr)")
        }
    }
}

import ATSPolicy
import ATSProbe
import ATSTestServers
import ATSTrust
import Foundation
import Testing
import TestSupport

/// One chain judge (issue 39, item 4): `atsprobe cert FILE` runs the public `ChainVerifier`
/// (with `NetworkIssuerFetching` for caIssuers), so the command line and an embedder calling
/// the API give one verdict on the same chain: trusted or not, the same failed rules with the
/// same reasons, the same anchor kind and chain as built. Asked of x509-limbo's server cases
/// (../shared/data/limbo/, read there) and of a chain whose intermediate only a caIssuers
/// fetch from a loopback HTTP server the test starts can supply.
@Suite("cert and ChainVerifier agree")
struct CertVerifierAgreementTests {
    /// What both sides say of one chain.
    struct Verdict: Equatable, CustomStringConvertible {
        var trusted: Bool
        var failures: [String]
        var anchorKind: String?
        var chainLength: Int
        var fetchedIssuers: Int

        var description: String {
            "trusted \(trusted), anchor \(anchorKind ?? "none"), chain \(chainLength), fetched \(fetchedIssuers), failures \(failures)"
        }

        init(_ judgement: ChainJudgement) {
            trusted = judgement.trusted
            failures = judgement.failures.map { "[\($0.rule)] \($0.reason)" }
            anchorKind = judgement.anchorKind?.rawValue
            chainLength = judgement.chain.count
            fetchedIssuers = judgement.fetchedIssuers?.count ?? 0
        }

        /// `cert --json`'s document; nil when it is not one.
        init?(json: String) {
            guard let document = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any],
                  let trusted = document["trusted"] as? Bool, let failures = document["failures"] as? [[String: Any]],
                  let chain = document["chain"] as? [Any] else { return nil }
            self.trusted = trusted
            self.failures = failures.map { "[\($0["rule"] as? String ?? "?")] \($0["reason"] as? String ?? "?")" }
            anchorKind = document["anchorKind"] as? String
            chainLength = chain.count
            fetchedIssuers = (document["fetchedIssuers"] as? [Any])?.count ?? 0
        }
    }

    /// `--at` as the command line takes it: a whole second, UTC.
    static func stamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    /// `cert` through the binary; the status with the verdict its JSON gives.
    static func cli(_ arguments: [String]) async throws -> (status: Int32, verdict: Verdict?, output: String) {
        let result = try await BinaryRunner.run(["cert"] + arguments + ["--json"])
        return (result.status, Verdict(json: result.stdout), result.stdout + result.stderr)
    }

    /// Every server case limbo names a peer for, at its validation time (whole seconds: the one
    /// case validating at a fraction of a second is left out, `--at` takes seconds), the case's
    /// trusted certificates as anchors the app sets, no caIssuers fetch (the cases' URLs are
    /// public hosts; tests reach loopback only).
    @Test func limboServerCasesGetOneVerdict() async throws {
        guard let cases = try await LimboCases.read() else {
            Issue.record("x509-limbo's server cases are not at \(LimboCases.file.path) (../shared/data/limbo/); not run")
            return
        }
        let files = try TemporaryDirectory(prefix: "atsprobe-agree")
        defer { files.remove() }
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let iso = ISO8601DateFormatter()
        struct Asked: Sendable { var id: String, chain: String, anchors: String, host: String, name: String, at: Date }
        var asked: [Asked] = []
        for (index, test) in cases.enumerated() {
            guard let host = test.host, let name = ServerName.normalized(host), !host.contains("*") else { continue }
            if let time = test.validation_time, time.contains(".") { continue }
            let at = test.validation_time.flatMap(iso.date(from:)) ?? now
            let chain = try files.write("chain-\(index).pem", test.chain_pem)
            let anchors = try files.write("anchors-\(index).pem", test.anchors_pem)
            asked.append(Asked(id: test.id, chain: chain, anchors: anchors, host: host, name: name, at: at))
        }
        // 197 cases: one names no peer, one validates at a fraction of a second.
        #expect(asked.count == 195, "\(asked.count) of \(cases.count) limbo cases asked")
        var disagreements: [String] = []
        var trusted = 0
        // Four binaries at a time: the machine is shared.
        for batch in stride(from: 0, to: asked.count, by: 4) {
            let results = try await withThrowingTaskGroup(of: (String, Verdict?, Verdict, String).self) { group in
                for test in asked[batch..<min(batch + 4, asked.count)] {
                    group.addTask {
                        let (_, cli, output) = try await Self.cli([test.chain, "--host", test.host, "--app-anchor", test.anchors,
                                                                   "--at", Self.stamp(test.at), "--rules", RuleSet.current.id, "--no-aia"])
                        let verifier = try ChainVerifier(anchors: AnchorConfiguration(appAnchorFile: test.anchors), at: test.at,
                                                         ruleSet: .current)
                        let api = Verdict(await verifier.judge(try CertificateChain(pem: String(contentsOfFile: test.chain, encoding: .utf8)),
                                                               name: test.name))
                        return (test.id, cli, api, output)
                    }
                }
                var collected: [(String, Verdict?, Verdict, String)] = []
                for try await result in group { collected.append(result) }
                return collected
            }
            for (id, cli, api, output) in results {
                if cli != api { disagreements.append("\(id): cert \(cli.map(\.description) ?? "no verdict: \(output.prefix(300))"), ChainVerifier \(api)") }
                if api.trusted { trusted += 1 }
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.count) disagree:\n\(disagreements.joined(separator: "\n"))")
        // Both answers occur: the comparison is not of one constant.
        #expect(trusted > 20 && trusted < asked.count - 20, "\(trusted) of \(asked.count) trusted")
    }

    /// The server left its intermediate out; the leaf's caIssuers URL names it on a loopback
    /// HTTP server. `cert` fetches it through the run's network (NetworkIssuerFetching) and so
    /// does `ChainVerifier` given `NetworkIssuerFetching`: trusted, the same chain of three, one
    /// fetch each. Without fetching (`--no-aia`, no `issuers`), both refuse alike.
    @Test func aMissingIntermediateFetchedByCAIssuers() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pki = try TestPKI(withIntermediate: true)
        let intermediate = try #require(pki.intermediate)
        let http = try TestHTTPServer.start()
        defer { http.stop() }
        http.set("/int.cer", .init(body: intermediate.certificateDER))
        let leaf = try pki.issue(CertCommandTests.spec(caIssuers: [http.url("/int.cer")]))
        let chain = try directory.write("leaf.pem", leaf.certificatePEM)
        let root = try pki.writeRootPEM()
        let at = CertCommandTests.judged
        let common = [chain, "--host", "cert.test", "--ca-file", root, "--at", Self.stamp(at), "--rules", RuleSet.current.id]

        let fetched = try await Self.cli(common + ["--allow-private-fetch"])
        #expect(fetched.status == 0, "\(fetched.output)")
        let runtime = try ProbeRuntime(configuration: .init(engineThreads: 2, threadNamePrefix: "agree"))
        let api: Verdict
        let offline: Verdict
        do {
            let parsed = try CertificateChain(pem: leaf.certificatePEM)
            let fetching = NetworkIssuerFetching(runtime: runtime, timeout: 10, allowsPrivateAddresses: true)
            api = Verdict(await (try ChainVerifier(anchors: AnchorConfiguration(caFile: root), at: at, ruleSet: .current, issuers: fetching))
                .judge(parsed, name: "cert.test"))
            offline = Verdict(await (try ChainVerifier(anchors: AnchorConfiguration(caFile: root), at: at, ruleSet: .current))
                .judge(parsed, name: "cert.test"))
        } catch {
            try? await runtime.shutdown()
            throw error
        }
        try await runtime.shutdown()
        #expect(fetched.verdict == api, "cert \(fetched.output)\nChainVerifier \(api)")
        #expect(api.trusted && api.chainLength == 3 && api.fetchedIssuers == 1, "\(api)")
        #expect(http.requests("/int.cer") == 2, "one fetch by cert, one by ChainVerifier")

        let refused = try await Self.cli(common + ["--no-aia"])
        #expect(refused.status == 1, "\(refused.output)")
        #expect(refused.verdict == offline, "cert \(refused.output)\nChainVerifier \(offline)")
        #expect(!offline.trusted && offline.failures.contains { $0.hasPrefix("[trust.incomplete-chain]") }, "\(offline)")
        #expect(http.requests("/int.cer") == 2, "nothing fetched without caIssuers fetching")
    }

    /// The run's network is the run's own: `cert --dns-servers` looks the caIssuers URL's host up
    /// through those servers (NetworkIssuerFetching over the run's prober and its resolver), as
    /// the prober's own fetch did before `cert` ran ChainVerifier. The name exists only in the
    /// loopback DNS server the test starts.
    @Test func caIssuersHostsAreResolvedThroughTheRunsDNSServers() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pki = try TestPKI(withIntermediate: true)
        let intermediate = try #require(pki.intermediate)
        let http = try TestHTTPServer.start()
        defer { http.stop() }
        http.set("/int.cer", .init(body: intermediate.certificateDER))
        let dns = try LoopbackDNSServer(names: ["aia.example.test": .answer(v4: ["127.0.0.1"])])
        defer { dns.stop() }
        let leaf = try pki.issue(CertCommandTests.spec(caIssuers: ["http://aia.example.test:\(http.port)/int.cer"]))
        let chain = try directory.write("leaf.pem", leaf.certificatePEM)
        let result = try await Self.cli([chain, "--host", "cert.test", "--ca-file", try pki.writeRootPEM(), "--at", CertCommandTests.judgedAt,
                                         "--dns-servers", dns.address, "--allow-private-fetch"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.verdict?.chainLength == 3 && result.verdict?.fetchedIssuers == 1, "\(result.output)")
        #expect(dns.queries(for: "aia.example.test") > 0)
        #expect(http.requests("/int.cer") == 1)
    }
}

/// x509-limbo's server cases, as ATSTrustTests' LimboServerTests reads them.
enum LimboCases {
    static let file: URL = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.deletingLastPathComponent().appendingPathComponent("shared/data/limbo/limbo-server.jsonl.gz").standardizedFileURL
    }()

    struct Case: Decodable, Sendable {
        var id: String
        var chain_pem: String
        var anchors_pem: String
        var host: String?
        var validation_time: String?
    }

    static func read() async throws -> [Case]? {
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        let result = try await ChildProcess.run("/usr/bin/gzip", ["-dc", file.path], timeout: 30)
        guard result.status == 0, !result.timedOut else { throw CocoaError(.fileReadCorruptFile) }
        return try result.stdout.split(separator: "\n").map { try JSONDecoder().decode(Case.self, from: Data($0.utf8)) }
    }
}

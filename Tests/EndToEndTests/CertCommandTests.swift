import Foundation
import Testing
import ATSTestServers
import TestSupport

/// `atsprobe cert CHAIN --host NAME` through the binary (issue 22 item 2): a chain file judged
/// as an Apple device would, exit 0 trusted, 1 not, 64 bad input.
@Suite("cert command")
struct CertCommandTests {
    /// A fixed time to judge at, and leaves dated around it, so outputs do not change.
    static let judgedAt = "2025-06-01T00:00:00Z"
    static let day: TimeInterval = 86_400
    static let judged = Date(timeIntervalSince1970: 1_748_736_000)  // 2025-06-01
    static func spec(_ name: String = "cert.test", days: Double = 90, key: TestKey = .ec(curve: .p256),
                     hash: TestSignatureHash = .sha256, dns: [String]? = nil, ip: [String] = [],
                     eku: [String]? = [CertificateSpec.serverAuth], caIssuers: [String] = []) -> CertificateSpec {
        CertificateSpec(commonName: name, dnsNames: dns ?? [name], ipAddresses: ip, key: key, signatureHash: hash,
                        notBefore: judged.addingTimeInterval(-10 * day), notAfter: judged.addingTimeInterval((days - 10) * day),
                        extendedKeyUsage: eku, caIssuersURLs: caIssuers)
    }

    @Test func goodChainIsTrusted() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pki = try TestPKI(withIntermediate: true)
        let chain = try directory.write("chain.pem", try pki.issue(Self.spec()).fullChainPEM)
        let result = try await BinaryRunner.run(["cert", chain, "--host", "cert.test", "--ca-file", try pki.writeRootPEM(), "--at", Self.judgedAt])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.hasPrefix("TRUSTED: an Apple device would trust this chain for cert.test\n"), "\(result.stdout)")
        #expect(result.stdout.contains("anchor: 'O=atsprobe tests,CN=atsprobe Test Root' (user trusted root)"), "\(result.stdout)")
        // The host's trailing dot is removed before matching (SecDNSMatch).
        let dotted = try await BinaryRunner.run(["cert", chain, "--host", "cert.test.", "--ca-file", try pki.writeRootPEM(), "--at", Self.judgedAt])
        #expect(dotted.status == 0, "\(dotted.stdout)")
    }

    /// --app-anchor: the app's anchors alone end the chain, judged as Apple judges them
    /// (anchorKind "app-anchor"): a leaf without EKU that a user-installed root accepts fails
    /// (SecPolicyCheckServerAuthEKU is strict for app anchors from 2019-07-01); a chain to
    /// another root is untrusted; with --ca-file it is bad input.
    @Test func appAnchorOption() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pki = try TestPKI()
        let root = try pki.writeRootPEM()
        let good = try directory.write("good.pem", try pki.issue(Self.spec()).fullChainPEM)
        let trusted = try await BinaryRunner.run(["cert", good, "--host", "cert.test", "--app-anchor", root, "--at", Self.judgedAt, "--json"])
        #expect(trusted.status == 0, "\(trusted.stdout)\(trusted.stderr)")
        let document = try #require((try? JSONSerialization.jsonObject(with: Data(trusted.stdout.utf8))) as? [String: Any])
        #expect(document["anchorKind"] as? String == "app-anchor")
        #expect(((document["run"] as? [String: Any])?["trustStore"] as? String)?.hasPrefix("anchors set by the app \(root) (the system store only tells system roots); Apple pinning list ") == true)

        let bare = try directory.write("bare.pem", try pki.issue(Self.spec(eku: nil)).fullChainPEM)
        let app = try await BinaryRunner.run(["cert", bare, "--host", "cert.test", "--app-anchor", root, "--at", Self.judgedAt])
        #expect(app.status == 1, "\(app.stdout)\(app.stderr)")
        #expect(app.stdout.contains("anchor: 'O=atsprobe tests,CN=atsprobe Test Root' (app anchor)"), "\(app.stdout)")
        #expect(app.stdout.contains("FAIL [eku-server-auth]"), "\(app.stdout)")
        let user = try await BinaryRunner.run(["cert", bare, "--host", "cert.test", "--ca-file", root, "--at", Self.judgedAt])
        #expect(user.status == 0, "\(user.stdout)\(user.stderr)")

        let other = try TestPKI(rootName: "atsprobe Other Root")
        let elsewhere = try await BinaryRunner.run(["cert", good, "--host", "cert.test", "--app-anchor", try other.writeRootPEM(), "--at", Self.judgedAt])
        #expect(elsewhere.status == 1, "\(elsewhere.stdout)")
        #expect(elsewhere.stdout.contains("FAIL [trust.incomplete-chain]"), "\(elsewhere.stdout)")

        let both = try await BinaryRunner.run(["cert", good, "--host", "cert.test", "--app-anchor", root, "--ca-file", root])
        #expect(both.status == 64)
        #expect(both.stderr.split(separator: "\n").count == 1, "\(both.stderr)")
        #expect(both.stderr.contains("--app-anchor replaces every other anchor"), "\(both.stderr)")
        let empty = try directory.write("empty.pem", "")
        let none = try await BinaryRunner.run(["cert", good, "--host", "cert.test", "--app-anchor", empty])
        #expect(none.status == 64)
        #expect(none.stderr.contains("--app-anchor '\(empty)': no PEM certificate in file"), "\(none.stderr)")
    }

    /// Each rule, failing alone: the rule id on a FAIL line with its fix, exit 1.
    @Test(arguments: [
        ("expired", "trust.expired", "reissue the certificate with a validity period"),
        ("wrong-name", "trust.name-mismatch", "reissue the leaf with a subjectAltName entry for 'cert.test'"),
        ("cn-only", "san-missing", "reissue the leaf with a subjectAltName"),
        ("ip-as-dns", "trust.name-mismatch", "reissue the leaf with a subjectAltName entry for '192.0.2.9' (an iPAddress entry"),
        ("825-days", "validity-825", "reissue the leaf valid for at most 825 days"),
        ("rsa-1024", "rsa-key-size", "reissue with an RSA key of at least 2048 bits"),
        ("sha1", "sha1-signature", "reissue the certificate signed with SHA-256 or stronger"),
        ("client-eku", "eku-server-auth", "reissue the leaf with extendedKeyUsage id-kp-serverAuth"),
        ("unknown-root", "trust.untrusted-root", "reissue from a CA in Apple's root store"),
    ])
    func eachRuleFailing(name: String, rule: String, fix: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pki = try TestPKI()
        var host = "cert.test"
        let spec: CertificateSpec
        switch name {
        case "expired": spec = Self.spec(days: 5)
        case "wrong-name": spec = Self.spec(dns: ["other.test"])
        case "cn-only": spec = Self.spec(dns: [])
        case "ip-as-dns": spec = Self.spec(dns: ["192.0.2.9"]); host = "192.0.2.9"
        case "825-days": spec = Self.spec(days: 900)
        case "rsa-1024": spec = Self.spec(key: .rsa(bits: 1024))
        case "sha1": spec = Self.spec(key: .rsa(bits: 2048), hash: .sha1)
        case "client-eku": spec = Self.spec(eku: ["clientAuth"])
        default: spec = Self.spec()
        }
        // An unknown root served with the chain: the chain ends at a root that is no anchor.
        let chain = try directory.write("chain.pem", try pki.issue(spec).fullChainPEM + (name == "unknown-root" ? pki.rootPEM : ""))
        var arguments = ["cert", chain, "--host", host, "--at", Self.judgedAt, "--no-aia"]
        if name != "unknown-root" { arguments += ["--ca-file", try pki.writeRootPEM()] }
        let result = try await BinaryRunner.run(arguments)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.hasPrefix("NOT TRUSTED: an Apple device would not trust this chain for \(host)"), "\(result.stdout)")
        #expect(result.stdout.contains("FAIL [\(rule)]"), "\(name): \(result.stdout)")
        #expect(result.stdout.contains("  fix: \(fix)"), "\(name): \(result.stdout)")
        let json = try await BinaryRunner.run(arguments + ["--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["trusted"] as? Bool == false)
        let failures = try #require(object["failures"] as? [[String: Any]])
        let failure = try #require(failures.first { $0["rule"] as? String == rule }, "\(json.stdout)")
        #expect((failure["source"] as? String)?.isEmpty == false)
        #expect((failure["reason"] as? String)?.contains("\n") == false)
    }

    /// Issue 24 item 5: `cert --host NAME` names no address, so a caIssuers URL on loopback is
    /// refused and the reason says why; --allow-private-fetch allows it.
    @Test func loopbackCAIssuersIsRefusedUnlessAllowed() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pki = try TestPKI(withIntermediate: true)
        let http = try TestHTTPServer.start()
        defer { http.stop() }
        http.set("/int.cer", .init(body: pki.intermediate!.certificateDER))
        let leaf = try pki.issue(Self.spec(caIssuers: [http.url("/int.cer")]))
        let chain = try directory.write("leaf.pem", leaf.certificatePEM)
        let base = ["cert", chain, "--host", "cert.test", "--ca-file", try pki.writeRootPEM(), "--at", Self.judgedAt]
        let refused = try await BinaryRunner.run(base)
        #expect(refused.status == 1, "\(refused.stdout)")
        #expect(refused.stdout.contains("refused: 127.0.0.1 is a loopback address and the target is not"), "\(refused.stdout)")
        #expect(http.requests("/int.cer") == 0)
        let allowed = try await BinaryRunner.run(base + ["--allow-private-fetch"])
        #expect(allowed.status == 0, "\(allowed.stdout)\(allowed.stderr)")
        #expect(http.requests("/int.cer") == 1)
    }

    /// Bad input: one line on stderr naming the file, exit 64, quickly (never a hang).
    @Test func badInputIsOneLineAndExit64() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pki = try TestPKI()
        let leafPEM = try pki.issue(Self.spec()).certificatePEM
        let notACertificate = try directory.write("notes.txt", "hello, this is not a certificate\n")
        let empty = try directory.write("empty.pem", "")
        let large = directory.path("large.pem")
        #expect(FileManager.default.createFile(atPath: large, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: large))
        try handle.truncate(atOffset: 50 * 1024 * 1024)
        try handle.close()
        let fifo = directory.path("chain.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let thousand = try directory.write("thousand.pem", String(repeating: leafPEM, count: 1000))
        let cases: [(String, String)] = [
            (notACertificate, "not a certificate chain"),
            (empty, "empty file"),
            (large, "larger than 1048576 bytes"),
            (fifo, "a named pipe"),
            (thousand, "1000 certificates: more than 256"),
            (directory.path("missing.pem"), "no such file"),
        ]
        for (path, reason) in cases {
            let result = try await BinaryRunner.run(["cert", path, "--host", "cert.test"], timeout: 20)
            #expect(result.status == 64, "\(path): \(result.stdout)\(result.stderr)")
            #expect(result.stdout.isEmpty)
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(result.stderr)")
            #expect(result.stderr.contains(reason), "\(path): \(result.stderr)")
        }
        let badHost = try await BinaryRunner.run(["cert", notACertificate, "--host", "bad host/x"])
        #expect(badHost.status == 64)
        #expect(badHost.stderr.contains("--host 'bad host/x' is not a DNS name or an IP address"), "\(badHost.stderr)")
    }

    /// The golden text of a chain that breaks two rules, judged at a fixed date.
    @Test func goldenText() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pki = try TestPKI()
        let chain = try directory.write("chain.pem", try pki.issue(Self.spec(days: 900, key: .rsa(bits: 1024))).fullChainPEM)
        let result = try await BinaryRunner.run(["cert", chain, "--host", "cert.test", "--ca-file", try pki.writeRootPEM(), "--at", Self.judgedAt])
        let file = GoldenOutputTests.directory.appendingPathComponent("cert-two-rules.txt")
        if ProcessInfo.processInfo.environment["ATSPROBE_UPDATE_GOLDEN"] == "1" {
            try Data(result.stdout.utf8).write(to: file)
        }
        let golden = try String(contentsOf: file, encoding: .utf8)
        #expect(result.stdout == golden, "output differs from \(file.path); diff it against a run with ATSPROBE_UPDATE_GOLDEN=1")
        #expect(result.status == 1)
    }

    /// probe, diagnose and cert give the same verdict for the same chain and name: served on
    /// loopback, and read from a file.
    @Test(arguments: ["good", "825-days", "wrong-name"])
    func sameVerdictLiveAndOffline(kind: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pki = try TestPKI(withIntermediate: true)
        let now = Date()
        let days: Double = kind == "825-days" ? 900 : 90
        let identity = try pki.issue(CertificateSpec(commonName: "same.test", dnsNames: [kind == "wrong-name" ? "other.test" : "same.test"],
                                                     ipAddresses: [], notBefore: now.addingTimeInterval(-Self.day),
                                                     notAfter: now.addingTimeInterval((days - 1) * Self.day)))
        let root = try pki.writeRootPEM()
        let chain = try directory.write("chain.pem", identity.fullChainPEM)
        let server = try TestTLSServer.start(TLSServerConfiguration(identity: identity))
        defer { server.stop() }
        let connect = ["--ca-file", root, "--connect-to", "same.test:443:127.0.0.1:\(server.port)"]
        let probe = try await BinaryRunner.run(["probe"] + connect + ["https://same.test/"])
        let diagnose = try await BinaryRunner.run(["diagnose"] + connect + ["https://same.test/"])
        let cert = try await BinaryRunner.run(["cert", chain, "--host", "same.test", "--ca-file", root])
        let expected: Int32 = kind == "good" ? 0 : 1
        #expect(probe.status == expected, "probe: \(probe.stdout)")
        #expect(diagnose.status == expected, "diagnose: \(diagnose.stdout)")
        #expect(cert.status == expected, "cert: \(cert.stdout)")
    }

    /// Dates before 1582-10-15 are written (and read back) in the proleptic Gregorian calendar,
    /// as `--at` reads them: `--at 1582-10-14` is 1582-10-14 in the JSON (issue 40, item 10:
    /// Foundation's ISO 8601 style wrote 1582-10-04, the Julian name of that day).
    @Test(arguments: ["1582-10-14", "1582-10-04", "0800-12-25", "1970-01-01"])
    func datesBeforeTheGregorianReformAreGregorian(_ day: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pki = try TestPKI()
        let chain = try directory.write("chain.pem", try pki.issue(Self.spec()).fullChainPEM)
        let result = try await BinaryRunner.run(["cert", chain, "--host", "cert.test", "--ca-file", try pki.writeRootPEM(),
                                                 "--at", day, "--json"])
        #expect([0, 1].contains(result.status), "\(result.stderr)")
        let written = result.stdout.replacingOccurrences(of: "\" : \"", with: "\":\"")
        #expect(written.contains("\"evaluatedAt\":\"\(day)T00:00:00Z\""), "\(result.stdout.prefix(2000))")
    }
}

import ATSPolicy
import Foundation
import Testing
import ATSTestServers

/// Certificate trust as Apple judges it, through the binary: Reason lines naming the rule under
/// every FAIL, the findings and CT verdict in `probe`, and --at as the clock.
@Suite("Trust end to end")
struct TrustEndToEndTests {
    static let issued = TrustSupport.utc(2025, 3, 1)

    /// Valid for `days` of Apple's inclusive days from 2025-03-01.
    static func spec(days: Int, extendedKeyUsage: [String]? = [CertificateSpec.serverAuth], scts: [TestSCT] = []) -> CertificateSpec {
        CertificateSpec(notBefore: issued, notAfter: issued.addingTimeInterval(Double(days) * 86_400 - 1),
                        extendedKeyUsage: extendedKeyUsage, embeddedSCTs: scts)
    }

    static let googleArgon = "DleUvPOuqT4zGyyZB7P3kN+bwj1xMiXdIaklrGHFTiE="

    @Test func everyFailNamesTheCertificateAndRule() async throws {
        let pki = try TestPKI()
        let root = try pki.writeRootPEM()
        // A user-installed root skips the strict EKU check, but an EKU without serverAuth or
        // anyEKU fails every chain.
        let identity = try pki.issue(Self.spec(days: 90, extendedKeyUsage: [CertificateSpec.clientAuth]))
        let result = try await TrustSupport.withServer(TLSServerConfiguration(identity: identity)) { port in
            try await TrustSupport.run(["--ats-diagnostics", "--verbose", "--ca-file", root, "--at", "2025-03-10", "https://127.0.0.1:\(port)/"])
        }
        #expect(result.status == 1, "stderr: \(result.stderr)")
        let fails = TrustSupport.failBlocks(result.stdout)
        #expect(fails.count == NSCurlMatrix.count, "\(result.stdout)")
        for block in fails {
            #expect(block.contains("Reason : certificate 0 [leaf] (O=atsprobe tests,CN=localhost): extendedKeyUsage allows neither id-kp-serverAuth nor anyExtendedKeyUsage"), "\(block)")
            #expect(block.contains("[eku-server-auth] (NSURLError -1202, SecureTransport -9807, OSStatus -67609 errSecInvalidExtendedKeyUsage)"), "\(block)")
            #expect(block.contains("_kCFStreamErrorCodeKey=-9807"), "\(block)")
            #expect(block.contains("NSURLErrorFailingURLPeerTrustErrorKey=Error Domain=NSOSStatusErrorDomain Code=-67609"), "\(block)")
        }
        #expect(result.stdout.contains("Trust      : Apple's root store security_certificates-55349.0.11 (156 roots); chain ends at a user-installed root"), "\(result.stdout)")
    }

    /// SSL_CERT_FILE with --trust-store system puts the test root in OpenSSL's system store: a public root, so 398 days and
    /// CT apply. --at judges as of 2025-03-10; at 2026-06-01 the same leaf has expired.
    @Test func publicRootRulesAndTheClock() async throws {
        let pki = try TestPKI()
        let root = try pki.writeRootPEM()
        let identity = try pki.issue(Self.spec(days: 399))
        let (judged, later) = try await TrustSupport.withServer(TLSServerConfiguration(identity: identity)) { port in
            let url = "https://127.0.0.1:\(port)/"
            return (try await TrustSupport.run(["--ats-diagnostics", "--trust-store", "system", "--at", "2025-03-10", url], environment: ["SSL_CERT_FILE": root]),
                    try await TrustSupport.run(["--ats-diagnostics", "--trust-store", "system", "--at", "2026-06-01", url], environment: ["SSL_CERT_FILE": root]))
        }
        #expect(judged.status == 1)
        let fails = TrustSupport.failBlocks(judged.stdout)
        #expect(fails.count == NSCurlMatrix.count, "\(judged.stdout)")
        for block in fails {
            #expect(block.contains("valid for 399 days; at most 398 for certificates from a public root issued on or after 2020-09-01 [validity-398]"), "\(block)")
            #expect(block.contains("Certificate Transparency required (the chain ends at a public (system) root): no SCTs were presented"), "\(block)")
            #expect(!block.contains("has expired"), "\(block)")
        }
        let laterFails = TrustSupport.failBlocks(later.stdout)
        #expect(laterFails.count == NSCurlMatrix.count)
        #expect(laterFails.allSatisfy { $0.contains("has expired") }, "\(later.stdout)")
    }

    @Test func probeListsAppleFindingsAndCT() async throws {
        let pki = try TestPKI()
        let root = try pki.writeRootPEM()
        let sct = TestSCT(logID: Array(Data(base64Encoded: Self.googleArgon)!), timestamp: Self.issued)
        let identity = try pki.issue(Self.spec(days: 90, extendedKeyUsage: nil, scts: [sct]))
        let (user, system, apple, appleDiagnostics) = try await TrustSupport.withServer(TLSServerConfiguration(identity: identity)) { port in
            let url = "https://127.0.0.1:\(port)/"
            return (try await TrustSupport.run(["probe", "--ca-file", root, "--at", "2025-03-10", url]),
                    try await TrustSupport.run(["probe", "--trust-store", "system", "--at", "2025-03-10", url], environment: ["SSL_CERT_FILE": root]),
                    try await TrustSupport.run(["probe", "--at", "2025-03-10", url], environment: ["SSL_CERT_FILE": root]),
                    try await TrustSupport.run(["--ats-diagnostics", "--at", "2025-03-10", url], environment: ["SSL_CERT_FILE": root]))
        }
        // Trusted, and no Apple rule applies that it breaks (no EKU is fine under a user-installed
        // root, CT is not required there): probe passes.
        #expect(user.status == 0, "\(user.stderr)")
        #expect(user.stdout.contains("trusted (anchor: user-installed root from --ca-file/--ca-dir)"))
        #expect(user.stdout.contains("Trust store      Apple's root store security_certificates-55349.0.11 (156 roots)"), "\(user.stdout)")
        // No EKU under a user-installed root: Apple skips the strict check.
        #expect(user.stdout.contains("Apple certificate rules: met (as of 2025-03-10T00:00:00Z)"), "\(user.stdout)")
        #expect(user.stdout.contains("embedded: log \(Self.googleArgon) (Google 'Argon 2026H1' log, usable) at 2025-03-01T00:00:00Z"))
        #expect(user.stdout.contains("Certificate Transparency: not required: the chain ends at a user-installed root"))
        #expect(user.stdout.contains("SCTs: 1 embedded, 0 TLS extension, 0 OCSP staple; 2 embedded needed for 90 days"))

        let systemStore = "the system store (OpenSSL: SSL_CERT_FILE=\(root)"
        #expect(system.stdout.contains("trusted (anchor: \(systemStore)"), "\(system.stdout)")
        #expect(system.stdout.contains("Other store: trusted by \(systemStore)"), "\(system.stdout)")
        #expect(system.stdout.contains("not by Apple's root store security_certificates-55349.0.11 (156 roots)"), "\(system.stdout)")
        #expect(system.stdout.contains("Apple certificate rules: 2 broken"))
        #expect(system.stdout.contains("  - certificate 0 [leaf] (O=atsprobe tests,CN=localhost): no extendedKeyUsage extension; Apple requires id-kp-serverAuth of every leaf chaining to a system root [eku-server-auth]"), "\(system.stdout)")
        #expect(system.stdout.contains("[eku-server-auth]"), "\(system.stdout)")
        #expect(system.stdout.contains("Certificate Transparency: NOT compliant, required (the chain ends at a public (system) root)"))
        #expect(system.stdout.contains("[certificate-transparency]"))

        // Apple's store (the default) does not hold the test root, the machine's store does.
        #expect(apple.status == 1)
        #expect(apple.stdout.contains("NOT trusted"), "\(apple.stdout)")
        #expect(apple.stdout.contains("Other store: trusted by \(systemStore)"), "\(apple.stdout)")
        #expect(apple.stdout.contains("not by Apple's root store security_certificates-55349.0.11 (156 roots)"), "\(apple.stdout)")
        let blocks = TrustSupport.failBlocks(appleDiagnostics.stdout)
        #expect(blocks.count == NSCurlMatrix.count, "\(appleDiagnostics.stdout)")
        for block in blocks {
            #expect(block.contains("is not an anchor (missing intermediate?); no caIssuers URL to fetch it from (trusted by \(systemStore)"), "\(block)")
            #expect(block.contains("not by Apple's root store security_certificates-55349.0.11 (156 roots)) (NSURLError -1202, SecureTransport -9813, OSStatus -25318 errSecCreateChainFailed)"), "\(block)")
        }
        #expect(appleDiagnostics.stdout.contains("Trust      : Apple's root store security_certificates-55349.0.11 (156 roots); chain NOT trusted; trusted by \(systemStore)"), "\(appleDiagnostics.stdout)")
    }

    /// --ct-log-list replaces the built-in list: the same two SCTs from test logs are unknown
    /// under Apple's list and make the leaf compliant under a list that names their logs (with
    /// the keys their signatures are checked with).
    @Test func ctLogListDecidesWhichLogsCount() async throws {
        let pki = try TestPKI()
        let root = try pki.writeRootPEM()
        let logA = try TestCTLog(name: "Test log A", operator: "Op A"), logB = try TestCTLog(name: "Test log B", operator: "Op B")
        let identity = try pki.issue(Self.spec(days: 90, scts: [TestSCT(log: logA, timestamp: Self.issued), TestSCT(log: logB, timestamp: Self.issued)]))
        let directory = try TrustSupport.directory()
        defer { directory.remove() }
        let listPath = try TrustSupport.write(TestCTLog.logListJSON([logA, logB], since: TrustSupport.utc(2024, 1, 1)), named: "log_list.json", in: directory)
        let badPath = try TrustSupport.write("{}", named: "bad.json", in: directory)
        // Log B's entry carrying log A's key: a list whose key does not hash to the log ID.
        let swapped = TestCTLog.logListJSON([logA, logB], since: TrustSupport.utc(2024, 1, 1))
            .replacingOccurrences(of: Data(logB.keyDER).base64EncodedString(), with: Data(logA.keyDER).base64EncodedString())
        let swappedPath = try TrustSupport.write(swapped, named: "swapped.json", in: directory)
        let (builtIn, custom, diagnose, bad, badKey) = try await TrustSupport.withServer(TLSServerConfiguration(identity: identity)) { port in
            let url = "https://127.0.0.1:\(port)/"
            let environment = ["SSL_CERT_FILE": root]  // a public root: CT is required
            return (try await TrustSupport.run(["probe", "--trust-store", "system", "--at", "2025-03-10", url], environment: environment),
                    try await TrustSupport.run(["probe", "--trust-store", "system", "--at", "2025-03-10", "--ct-log-list", listPath, url], environment: environment),
                    try await TrustSupport.run(["--ats-diagnostics", "--trust-store", "system", "--at", "2025-03-10", "--ct-log-list", listPath, url], environment: environment),
                    try await TrustSupport.run(["probe", "--ct-log-list", badPath, url], environment: environment),
                    try await TrustSupport.run(["probe", "--ct-log-list", swappedPath, url], environment: environment))
        }
        #expect(builtIn.stdout.contains("(not in the log list) at 2025-03-01T00:00:00Z, signature not checked (no key for this log)"), "\(builtIn.stdout)")
        #expect(builtIn.stdout.contains("Certificate Transparency: NOT compliant"), "\(builtIn.stdout)")
        #expect(custom.stdout.contains("(Test log A, usable) at 2025-03-01T00:00:00Z, signature valid"), "\(custom.stdout)")
        #expect(custom.stdout.contains("(Test log B, usable) at 2025-03-01T00:00:00Z, signature valid"), "\(custom.stdout)")
        #expect(custom.stdout.contains("Certificate Transparency: compliant"), "\(custom.stdout)")
        #expect(custom.stdout.contains("Apple certificate rules: met"), "\(custom.stdout)")
        #expect(diagnose.status == 0, "with the list the host passes the default ATS load: \(diagnose.stdout)")
        #expect(bad.status == 64)
        #expect(bad.stderr == "atsprobe: --ct-log-list: CT log list '\(badPath)': not a log list: missing operators\n", "\(bad.stderr)")
        #expect(badKey.status == 64)
        #expect(badKey.stderr == "atsprobe: --ct-log-list: CT log list '\(swappedPath)': log 'Test log B': key does not match log_id\n", "\(badKey.stderr)")
    }
}

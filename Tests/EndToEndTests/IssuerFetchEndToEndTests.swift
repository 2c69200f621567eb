import Foundation
import Testing
import ATSTestServers

/// The server sends only its leaf; the intermediate is at the leaf's caIssuers URL on a
/// loopback HTTP server. Through the binary: probe shows the fetch and the chain as built,
/// diagnostics PASS with a warning and a server fix, --no-aia fails as watchOS would.
@Suite("caIssuers end to end")
struct IssuerFetchEndToEndTests {
    @Test func leafOnlyServerWithFetchableIntermediate() async throws {
        let pki = try TestPKI(withIntermediate: true)
        let root = try pki.writeRootPEM()
        let http = try TestHTTPServer.start()
        defer { http.stop() }
        http.set("/int.cer", .init(body: pki.intermediate!.certificateDER))
        let issued = try pki.issue(CertificateSpec(caIssuersURLs: [http.url("/int.cer")]))
        let leafOnly = issued.leafOnly
        // Async runs: a blocking wait would hold one of the few cooperative threads.
        let server = try TestTLSServer.start(TLSServerConfiguration(identity: leafOnly))
        defer { server.stop() }
        let url = "https://127.0.0.1:\(server.port)/"
        let probe = try await BinaryRunner.run(["probe", "--ca-file", root, url])
        let diagnose = try await BinaryRunner.run(["--ats-diagnostics", "--ca-file", root, url])
        let noAIA = try await BinaryRunner.run(["probe", "--no-aia", "--ca-file", root, url])
        #expect(probe.status == 0, "\(probe.stdout)\(probe.stderr)")
        #expect(probe.stdout.contains("Chain as served (1 certificate)"))
        #expect(probe.stdout.contains("  Fetched issuer of 'O=atsprobe tests,CN=localhost' from \(http.url("/int.cer")): got 'O=atsprobe tests,CN=atsprobe Test Root Intermediate'"), "\(probe.stdout)")
        #expect(probe.stdout.contains("  Warning: the server does not send its intermediate"), "\(probe.stdout)")
        #expect(probe.stdout.contains("  Chain as built: 'O=atsprobe tests,CN=localhost' <- 'O=atsprobe tests,CN=atsprobe Test Root Intermediate' <- 'O=atsprobe tests,CN=atsprobe Test Root'"), "\(probe.stdout)")
        // Sixteen diagnostics and the probe: the URL was fetched once per run.
        #expect(diagnose.status == 0, "\(diagnose.stdout)")
        #expect(diagnose.stdout.contains("Warning    : the server does not send its intermediate 'O=atsprobe tests,CN=atsprobe Test Root Intermediate'"), "\(diagnose.stdout)")
        #expect(diagnose.stdout.contains("Server fix : send the intermediate(s) with the leaf"), "\(diagnose.stdout)")
        #expect(http.requests("/int.cer") == 2, "one fetch per run, two runs that fetched")
        #expect(noAIA.status == 1)
        #expect(noAIA.stdout.contains("incompleteChain: only the leaf was served and its issuer 'O=atsprobe tests,CN=atsprobe Test Root Intermediate' is not an anchor (missing intermediate?); caIssuers fetching is off"), "\(noAIA.stdout)")
    }

    @Test func badTrustStoreIsAUsageError() async throws {
        let result = try await BinaryRunner.run(["probe", "--trust-store", "debian", "https://127.0.0.1:1/"])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("debian"), "\(result.stderr)")
    }
}

import ATSTestServers
import Foundation
import Testing
import TestSupport

/// JSON readers get what text readers get (issue 26, item 1): the summary's missing-intermediate
/// warning and its server fix are in the diagnostics document and the audit record too.
@Suite struct DiagnosticsJSONAdviceTests {
    @Test func missingIntermediateWarningIsInTheJSONAsInTheText() async throws {
        let pki = try TestPKI(withIntermediate: true)
        let root = try pki.writeRootPEM()
        let http = try TestHTTPServer.start()
        defer { http.stop() }
        http.set("/int.cer", .init(body: pki.intermediate!.certificateDER))
        let issued = try pki.issue(CertificateSpec(caIssuersURLs: [http.url("/int.cer")]))
        let leafOnly = issued.leafOnly
        let server = try TestTLSServer.start(TLSServerConfiguration(identity: leafOnly))
        defer { server.stop() }
        let url = "https://127.0.0.1:\(server.port)/"
        let text = try await BinaryRunner.run(["diagnose", "--ca-file", root, url], timeout: 120)
        let json = try await BinaryRunner.run(["diagnose", "--ca-file", root, "--json", url], timeout: 120)
        let audit = try await BinaryRunner.run(["audit", "--ca-file", root, "--json", url], timeout: 120)
        #expect(text.status == 0 && json.status == 0 && audit.status == 0, "\(json.stderr)\(audit.stderr)")
        for output in [json.stdout, audit.stdout] {
            let document = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
            let missing = try #require(document["missingIntermediate"] as? [String: String], "absent from \(output.prefix(200))")
            let warning = try #require(missing["warning"])
            #expect(warning.hasPrefix("the server does not send its intermediate 'O=atsprobe tests,CN=atsprobe Test Root Intermediate'"))
            #expect(text.stdout.contains("Warning    : \(warning)\n"), "the text says the same: \(text.stdout)")
            #expect(text.stdout.contains("Server fix : \(missing["fix"] ?? "-")\n"))
        }
        // A server that sends its chain has no such field: documents without a warning are unchanged.
        let fixture = try ExceptionFixture()
        try await fixture.withServer { port in
            let whole = try await BinaryRunner.run(["diagnose", "--ca-file", fixture.rootPath, "--json", "https://127.0.0.1:\(port)/"],
                                                   timeout: 120)
            #expect(whole.status == 0, "\(whole.stderr)")
            #expect(!whole.stdout.contains("missingIntermediate"))
        }
    }
}

import Foundation
import Testing
@testable import ATSEngine
import ATSPolicy
@testable import ATSProbe
import ATSTestServers
import TLSFacts

/// Loads that follow a hostile server's redirects (docs/robustness.md, rows 5 and 12), against
/// loopback servers: a Location with control bytes is never followed, and a loop ends at
/// Apple's limit. Resolution itself is tested without sockets in `RedirectTests`.
@Suite("Hostile redirects")
struct HostileRedirectTests {
    /// A test PKI whose root is the prober's user anchor, and nscurl's runner over that prober.
    struct EngineFixture {
        let pki: TestPKI
        let prober: Prober
        let runner: DiagnosticsRunner

        init() throws {
            pki = try TestPKI()
            prober = try Prober(options: ProbeOptions(caFile: try pki.writeRootPEM(), useSystemTrustStore: false))
            runner = DiagnosticsRunner(prober: prober, options: DiagnosticsOptions(ruleSet: .current, timeout: HostileRedirectTests.timeout))
        }

    }

    static let timeout = 5.0
    /// The wall clock only guards against a hang (other tests may hold the cooperative pool).
    static let hangGuard = 60.0

    @Test func locationWithControlBytesNeverReachesTheWire() async throws {
        let fixture = try EngineFixture()
        let injected = Array("HTTP/1.1 302 Found\r\nLocation: /x\nX-Injected: 1\r\nContent-Length: 0\r\n\r\n".utf8)
        let withNul = Array("HTTP/1.1 302 Found\r\nLocation: /y\u{0}\r\nX: 1\r\nContent-Length: 0\r\n\r\n".utf8)
        for response in [injected, withNul] {
            let configuration = TLSServerConfiguration(identity: try fixture.pki.issue(CertificateSpec()), http: .raw(response))
            try await TestTLSServer.serving(configuration) { server in
                let runner = fixture.runner
                let outcome = await runner.load(Target(host: "127.0.0.1", port: server.port), configuration: ATSConfiguration())
                #expect(outcome.hops.count == 1, "the hop with control bytes must not be followed")
                #expect(server.requestHeads.count == 1)
                #expect(!server.requestHeads.contains { $0.contains("X-Injected") || $0.contains("\0") })
            }
        }
    }

    @Test func redirectLoopEndsTheLoad() async throws {
        let fixture = try EngineFixture()
        let identity = try fixture.pki.issue(CertificateSpec())
        let configuration = TLSServerConfiguration(identity: identity, http: .perPath(["/a": .redirect(to: "/b"), "/b": .redirect(to: "../a")]))
        try await TestTLSServer.serving(configuration) { server in
            let runner = fixture.runner
            let started = Date()
            // The load runs on the engine's threads, as a command's does: with the whole suite in
            // flight, the cooperative pool's two threads queue every other test's work, and each
            // of the loop's hops resumed there waited behind it (91 s measured, 0.07 s alone).
            let outcome = await withTaskExecutorPreference((try ProbeRuntime.shared).executor) {
                await runner.load(Target(host: "127.0.0.1", port: server.port, path: "/a"), configuration: ATSConfiguration())
            }
            let seconds = Date().timeIntervalSince(started)
            #expect(outcome.hops.count <= DiagnosticsOptions(ruleSet: .current).maxRedirects + 1)
            #expect(outcome.hops.map(\.url).contains("https://127.0.0.1:\(server.port)/b"))
            #expect(seconds < Self.hangGuard)
        }
    }
}

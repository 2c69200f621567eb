import Foundation
import Testing
@testable import ATSEngine
import ATSPolicy
@testable import ATSProbe
import ATSTestServers
import TLSFacts

/// Issue 43: a target's diagnostics make every handshake in one wave of connections. A host
/// where no test completes a handshake (DHE only: no Apple offer has a suite it takes) needs the
/// widest offer's handshake too, to name what the server would choose; it is made with the
/// others, not after their failures.
///
/// The server answers nothing until every connection the run will make has arrived (bounded by
/// a deadline): a handshake made only after another's answer cannot arrive while it waits. So
/// the test reads no clock; it fails on a run that makes a second wave, after the deadline.
@Suite("One wave of handshakes")
struct OneWaveTests {
    /// How long the server waits for the connections before it answers anyway; the run's own
    /// timeout is longer, so a second wave still completes (and is seen) after it.
    static let holdSeconds = 15.0
    static let timeout = 40.0

    struct Fixture {
        let pki: TestPKI
        let runner: DiagnosticsRunner

        init() throws {
            pki = try TestPKI()
            let prober = try Prober(options: ProbeOptions(caFile: try pki.writeRootPEM(), useSystemTrustStore: false))
            var options = DiagnosticsOptions(ruleSet: .current, timeout: OneWaveTests.timeout)
            // Held until a test completes a handshake however loaded the machine (at most half
            // the timeout): what the server completes is then the run's doing, not the clock's.
            options.speculativeHoldSeconds = OneWaveTests.timeout
            runner = DiagnosticsRunner(prober: prober, options: options)
        }

        /// The connections one run of `target` makes: each distinct first-hop offer of nscurl's
        /// tests and the supplementary ones, worked out from the tests (not from the run), and
        /// the widest offer's.
        func connections(for target: Target) -> Int {
            let tests = NSCurlMatrix.tests(host: target.host) + NSCurlMatrix.supplementaryTests(host: target.host)
            return Set(tests.compactMap { runner.request(for: target, under: $0.configuration) }).count + 1
        }
    }

    @Test func aFailingHostIsDiagnosedInOneWave() async throws {
        let fixture = try Fixture()
        let probe = Target(host: "127.0.0.1", port: 443)
        let expected = fixture.connections(for: probe)
        var configuration = TLSServerConfiguration(identity: try fixture.pki.issue(CertificateSpec()), minVersion: .tls12,
                                                   maxVersion: .tls12, cipherList: "DHE-RSA-AES128-GCM-SHA256")
        configuration.hold = HandshakeHold(connections: expected, deadline: Self.holdSeconds)
        try await TestTLSServer.serving(configuration) { server in
            let report = await withTaskExecutorPreference(try ProbeRuntime.shared.executor) {
                await fixture.runner.run(Target(host: "127.0.0.1", port: server.port))
            }
            // The diagnosis is today's: no exception helps, and the widest offer names the suite.
            guard case .impossible = report.suggestion else {
                Issue.record("a DHE-only host needs no exception? \(report.suggestion)")
                return
            }
            #expect(report.widestProbe != nil, "the widest offer's answer names what the server chose")
            #expect(report.handshakes == expected)
            #expect(server.acceptedConnections == expected)
            let release = server.holdRelease
            #expect(release?.byCount == true && release?.arrived == expected,
                    "every connection must arrive before any handshake is answered: \(String(describing: release))")
        }
    }

    /// A passing host: the widest offer's handshake, started with the others, is not needed.
    /// It waits with the server's first answer unread (`ServerHelloHold`) and is withdrawn when
    /// the first test completes a handshake, before its key exchange: the server completes only
    /// the handshakes the diagnosis used, and the report counts those, as before. (Without the
    /// hold the widest offer's handshake ran to its end beside the others on loopback: the
    /// server completed one more.)
    @Test func aPassingHostCompletesOnlyTheHandshakesItUses() async throws {
        let fixture = try Fixture()
        let configuration = TLSServerConfiguration(identity: try fixture.pki.issue(CertificateSpec()), minVersion: .tls12)
        try await TestTLSServer.serving(configuration) { server in
            let target = Target(host: "127.0.0.1", port: server.port)
            let report = await withTaskExecutorPreference(try ProbeRuntime.shared.executor) { await fixture.runner.run(target) }
            let used = fixture.connections(for: target) - 1
            #expect(report.defaultPasses)
            #expect(report.widestProbe == nil)
            #expect(report.handshakes == used)
            #expect(server.acceptedConnections <= used + 1)
            #expect(server.completedHandshakes == used, "the widest offer's handshake must end before its key exchange")
        }
    }
}

import Foundation
import Testing
import ATSProbe
import ATSTestServers
import TLSFacts

/// The chain check: every problem on its own, and where the anchor came from.
@Suite("Probe trust")
struct ProbeTrustTests {
    private func kinds(_ observation: Observation) -> [TrustProblem.Kind] {
        observation.trust.problems.map(\.kind)
    }

    @Test func userAnchorWithIntermediate() async throws {
        let fixture = try ProbeFixture(withIntermediate: true)
        let observation = try await fixture.probe().get()
        #expect(observation.trust.problems.isEmpty)
        #expect(observation.trust.anchor == .user)
        #expect(observation.chain.count == 2)
        #expect(observation.chain.last?.isCA == true)
        #expect(observation.chain.first?.issuer == observation.chain.last?.subject)
    }

    @Test func expiredLeaf() async throws {
        let fixture = try ProbeFixture()
        let spec = CertificateSpec(notBefore: Date(timeIntervalSinceNow: -30 * 86_400), notAfter: Date(timeIntervalSinceNow: -86_400))
        let observation = try await fixture.probe(spec).get()
        #expect(kinds(observation) == [.expired])
        #expect(observation.trust.problems.first?.certificateIndex == 0)
        #expect(observation.trust.anchor == .user)
    }

    @Test func evaluationDateMovesTheClock() async throws {
        let pki = try TestPKI()
        let prober = try Prober(options: ProbeOptions(caFile: try pki.writeRootPEM(), useSystemTrustStore: false,
                                                      evaluationDate: Date(timeIntervalSinceNow: 365 * 86_400)))
        let server = try TestTLSServer.start(TLSServerConfiguration(identity: try pki.issue(CertificateSpec())))
        defer { server.stop() }
        let observation = try await prober.probe(loopbackRequest(port: server.port)).get()
        #expect(observation.trust.problems.map(\.kind) == [.expired])
    }

    @Test func notYetValidLeaf() async throws {
        let fixture = try ProbeFixture()
        let spec = CertificateSpec(notBefore: Date(timeIntervalSinceNow: 10 * 86_400), notAfter: Date(timeIntervalSinceNow: 40 * 86_400))
        let observation = try await fixture.probe(spec).get()
        #expect(kinds(observation) == [.notYetValid])
    }

    @Test func wrongHost() async throws {
        let fixture = try ProbeFixture()
        let observation = try await fixture.probe(CertificateSpec(commonName: "127.0.0.1", dnsNames: ["other.example"], ipAddresses: [])).get()
        #expect(kinds(observation) == [.nameMismatch])
        #expect(observation.trust.anchor == .user)
    }

    @Test func selfSignedLeaf() async throws {
        let fixture = try ProbeFixture()
        let identity = try TestPKI.selfSigned(CertificateSpec())
        try await fixture.withServer(TLSServerConfiguration(identity: identity)) { server in
            let observation = try await fixture.prober.probe(loopbackRequest(port: server.port)).get()
            #expect(kinds(observation) == [.selfSigned])
            #expect(observation.trust.anchor == nil)
            #expect(observation.leaf?.isSelfIssued == true)
        }
    }

    /// No --ca-file: the test root is in no store.
    @Test func unknownRoot() async throws {
        let pki = try TestPKI(withIntermediate: true)
        let prober = try Prober(options: ProbeOptions())
        let server = try TestTLSServer.start(TLSServerConfiguration(identity: try pki.issue(CertificateSpec())))
        defer { server.stop() }
        let observation = try await prober.probe(loopbackRequest(port: server.port)).get()
        #expect(kinds(observation) == [.untrustedRoot])
        #expect(observation.trust.anchor == nil)
    }

    @Test func incompleteChain() async throws {
        let fixture = try ProbeFixture(withIntermediate: true)
        let observation = try await fixture.probe { $0.sendChain = false }.get()
        #expect(observation.chain.count == 1)
        #expect(kinds(observation) == [.incompleteChain])
        #expect(observation.trust.anchor == nil)
    }

    /// Problems are collected, not stopped at: expired and for another name, together.
    @Test func severalProblemsAtOnce() async throws {
        let fixture = try ProbeFixture()
        let spec = CertificateSpec(dnsNames: ["other.example"], ipAddresses: [],
                                   notBefore: Date(timeIntervalSinceNow: -30 * 86_400), notAfter: Date(timeIntervalSinceNow: -86_400))
        let observation = try await fixture.probe(spec).get()
        #expect(Set(kinds(observation)) == [.expired, .nameMismatch])
    }

    @Test func unreadableCAFileIsASetupError() throws {
        let path = "/nonexistent/atsprobe-\(UUID().uuidString).pem"
        #expect {
            _ = try Prober(options: ProbeOptions(caFile: path))
        } throws: { error in
            guard let setup = error as? ProbeSetupError else { return false }
            return setup.description.contains(path) && !setup.description.contains("\n")
        }
    }

    @Test func caDirectoryIsAUserAnchor() async throws {
        let pki = try TestPKI()
        let directory = URL(fileURLWithPath: try pki.writeRootPEM()).deletingLastPathComponent().path
        let prober = try Prober(options: ProbeOptions(caDirectory: directory, useSystemTrustStore: false))
        let server = try TestTLSServer.start(TLSServerConfiguration(identity: try pki.issue(CertificateSpec())))
        defer { server.stop() }
        let observation = try await prober.probe(loopbackRequest(port: server.port)).get()
        #expect(observation.trust.problems.isEmpty)
        #expect(observation.trust.anchor == .user)
    }
}

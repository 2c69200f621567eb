import Testing
import ATSProbe
import ATSTestServers
import TLSFacts

/// atsprobe offers "http/1.1" (what URLSession sends for an HTTP/1.1 load); what the server
/// answers is recorded, and a server that refuses every offered protocol is a typed failure.
@Suite("ALPN")
struct ProbeALPNTests {
    @Test(arguments: [TLSVersion.tls12, .tls13])
    func serverPicksTheOfferedProtocol(version: TLSVersion) async throws {
        let fixture = try ProbeFixture()
        let result = try await fixture.probe(offer: offer(version, version)) { $0.alpn = ["h2", "http/1.1"] }
        let observation = try result.get()
        #expect(observation.protocolVersion == version)
        #expect(observation.alpn == "http/1.1")
    }

    @Test func serverIgnoringALPNLeavesItUnset() async throws {
        let fixture = try ProbeFixture()
        #expect(try await fixture.probe(offer: offer(.tls13, .tls13)) { _ in }.get().alpn == nil)
    }

    @Test func noCommonProtocolGoesOnWithoutALPN() async throws {
        let fixture = try ProbeFixture()
        let observation = try await fixture.probe(offer: offer(.tls13, .tls13)) { $0.alpn = ["h2"] }.get()
        #expect(observation.alpn == nil)
        #expect(observation.protocolVersion == .tls13)
    }

    @Test(arguments: [TLSVersion.tls12, .tls13])
    func noCommonProtocolAlertIsReported(version: TLSVersion) async throws {
        let fixture = try ProbeFixture()
        let result = try await fixture.probe(offer: offer(version, version)) {
            $0.alpn = ["h2"]
            $0.alpnMismatchIsFatal = true
        }
        #expect(result.failure?.kind == .tlsAlert)
        #expect(result.failure?.alert == TLSAlert(code: 120))
        #expect(result.failure?.alert?.description == "no_application_protocol (120)")
    }
}

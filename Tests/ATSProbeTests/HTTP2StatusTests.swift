import Testing
import ATSProbe
import ATSTestServers
import TLSFacts

/// An h2 response's `:status` is exactly three digits, 100 to 599 (RFC 9113 section 8.3.2):
/// `Int("+99")` read 99 and passed the load (issue 24, "HTTP/2 status").
@Suite("HTTP/2 :status")
struct HTTP2StatusTests {
    func exchange(status: String?) async throws -> HTTPExchange? {
        let fixture = try ProbeFixture()
        var configuration = TLSServerConfiguration(identity: try fixture.pki.issue(CertificateSpec()), http: .status(204))
        configuration.alpn = ["h2"]
        configuration.http2Fault = status.map { .status($0) }
        return try await fixture.withServer(configuration) { server in
            // The offer URLSession makes: h2 first.
            var h2 = Prober.widestOffer
            h2.alpn = ["h2", "http/1.1"]
            let observation = try await fixture.prober.probe(loopbackRequest(port: server.port, offer: h2, http: true)).get()
            #expect(observation.alpn == "h2")
            return observation.http
        }
    }

    @Test(arguments: ["+99", "-01", "1000", "99", "600", "099", "2 0", "20x", "", "\u{0661}\u{0660}\u{0660}"])
    func malformedStatusIsRefused(_ status: String) async throws {
        let http = try await exchange(status: status)
        #expect(http?.statusCode == nil, "\(status.debugDescription) read as \(String(describing: http?.statusCode))")
        #expect(http?.failure == "HTTP/2 response without a valid :status")
    }

    @Test(arguments: [("200", 200), ("599", 599), ("404", 404)])
    func threeDigitStatusIsRead(_ status: String, _ code: Int) async throws {
        let http = try await exchange(status: status)
        #expect(http?.statusCode == code)
        #expect(http?.failure == nil)
    }

    @Test func statusFromTheServersBehaviourIsRead() async throws {
        #expect(try await exchange(status: nil)?.statusCode == 204)
    }
}

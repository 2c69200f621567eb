import Foundation
import Testing
import ATSProbe
import ATSTestServers
import TLSFacts

/// The GET after the handshake, and scheduling many probes.
@Suite("Probe HTTP and scheduling")
struct ProbeHTTPTests {
    @Test func getRecordsStatus() async throws {
        let fixture = try ProbeFixture()
        let identity = try fixture.pki.issue(CertificateSpec())
        try await fixture.withServer(TLSServerConfiguration(identity: identity, http: .status(404))) { server in
            let observation = try await fixture.prober.probe(loopbackRequest(port: server.port, http: true)).get()
            #expect(observation.http?.statusCode == 404)
            #expect(observation.http?.reason == "Not Found")
            #expect(observation.http?.failure == nil)
        }
    }

    @Test func redirectLocation() async throws {
        let fixture = try ProbeFixture()
        let identity = try fixture.pki.issue(CertificateSpec())
        let location = "https://www.example.test/next?x=1"
        try await fixture.withServer(TLSServerConfiguration(identity: identity, http: .redirect(to: location))) { server in
            let observation = try await fixture.prober.probe(loopbackRequest(port: server.port, http: true)).get()
            #expect(observation.http?.statusCode == 301)
            #expect(observation.http?.location == location)
        }
    }

    @Test func noResponseIsRecordedAsFailure() async throws {
        let fixture = try ProbeFixture()
        let identity = try fixture.pki.issue(CertificateSpec())
        try await fixture.withServer(TLSServerConfiguration(identity: identity, http: .noResponse)) { server in
            let observation = try await fixture.prober.probe(loopbackRequest(port: server.port, http: true)).get()
            #expect(observation.http?.statusCode == nil)
            #expect(observation.http?.failure != nil)
        }
    }

    /// The cleartext GET (http://) runs under the limits a handshake runs under (issue 23, item
    /// 4): it waits for a slot of the runtime's descriptor budget, and a task cancelled while it
    /// waits ends as cancelled without connecting. (It used to connect at once, outside the budget,
    /// and to run on after its task was cancelled.)
    @Test func cleartextGetWaitsForADescriptorSlotAndEndsWhenCancelled() async throws {
        let server = try CleartextHTTPServer.start()
        defer { server.stop() }
        let runtime = try ProbeRuntime(configuration: ProbeRuntime.Configuration(engineThreads: 2, descriptorSlots: 1, threadNamePrefix: "rt-clear"))
        let prober = try Prober(options: ProbeOptions(useSystemTrustStore: false), runtime: runtime)
        let request = ProbeRequest(target: try Target(parsing: "http://127.0.0.1:\(server.port)/"), offer: Prober.widestOffer)
        // The only slot is taken: the GET must queue for it.
        #expect(await runtime.descriptorBudget.acquire())
        let queued = Task { await prober.fetchCleartext(request) }
        let end = Date().addingTimeInterval(10)
        while runtime.descriptorBudget.waiting == 0 && Date() < end { await Task.yield() }
        #expect(runtime.descriptorBudget.waiting == 1, "the cleartext GET did not wait for a descriptor slot")
        queued.cancel()
        guard case .failure(let failure) = await queued.value else {
            Issue.record("a cancelled cleartext GET ran")
            return
        }
        #expect(failure.kind == .cancelled)
        #expect(server.acceptedConnections == 0)
        // With the slot back, the next GET runs.
        runtime.descriptorBudget.release()
        #expect(try await prober.fetchCleartext(request).get().statusCode == 200)
        try await runtime.shutdown()
    }
}

import Foundation
import Testing
@testable import ATSProbe
import ATSTestServers
import ATSTrust
import TLSFacts

/// The runtime is never ambient: `cert`'s caIssuers fetch (a chain judged from a file, outside
/// any probe) runs on the runtime its Prober was given, not on `ProbeRuntime.shared`.
@Suite("caIssuers fetch runtime")
struct IssuerFetchRuntimeTests {
    @Test("A chain judged outside a probe fetches on its Prober's runtime, and not once that runtime is shut down")
    func fetchRunsOnTheProbersRuntime() async throws {
        let setup = try IssuerFetchTests.Setup()
        defer { setup.http.stop() }
        setup.http.set("/int.cer", .init(body: setup.intermediateDER))
        let leaf = try setup.leafOnly(urls: [setup.http.url("/int.cer")])
        let chain = try ChainFile.chain(in: Array(leaf.certificatePEM.utf8))
        let options = ProbeOptions(useSystemTrustStore: false, additionalSystemAnchorsFile: setup.rootPath)

        // A runtime of its own, alive: the missing intermediate is fetched and the chain verifies.
        let live = try ProbeRuntime(configuration: .init(engineThreads: 2, threadNamePrefix: "fetch-live"))
        let (_, trusted) = await (try Prober(options: options, runtime: live)).evaluate(chain: chain, name: "127.0.0.1", timeout: 5)
        #expect(trusted.isTrusted, "\(trusted.problems)")
        #expect(setup.http.requests("/int.cer") == 1)
        try await live.shutdown()

        // The Prober's runtime shut down: the fetch is refused there; the shared runtime, alive,
        // is never used in its place.
        let stopped = try ProbeRuntime(configuration: .init(engineThreads: 2, threadNamePrefix: "fetch-stop"))
        let prober = try Prober(options: options, runtime: stopped)
        try await stopped.shutdown()
        let (_, refused) = await prober.evaluate(chain: chain, name: "127.0.0.1", timeout: 5)
        #expect(!refused.isTrusted)
        #expect(refused.fetchedIssuers?.first?.failure == "not fetched: the probe runtime is shut down", "\(String(describing: refused.fetchedIssuers))")
        #expect(setup.http.requests("/int.cer") == 1, "the fetch ran on another runtime")
    }
}

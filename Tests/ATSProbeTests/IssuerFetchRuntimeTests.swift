import Foundation
import Testing
@testable import ATSProbe
import ATSTestServers
import ATSTrust
import TLSFacts

/// The runtime is never ambient: `cert`'s caIssuers fetch (a chain judged from a file, outside
/// any probe: ChainVerifier with NetworkIssuerFetching over the run's prober) runs on the runtime
/// its Prober was given, not on `ProbeRuntime.shared`.
@Suite("caIssuers fetch runtime")
struct IssuerFetchRuntimeTests {
    @Test("A chain judged outside a probe fetches on its Prober's runtime, and not once that runtime is shut down")
    func fetchRunsOnTheProbersRuntime() async throws {
        let setup = try IssuerFetchTests.Setup()
        defer { setup.http.stop() }
        setup.http.set("/int.cer", .init(body: setup.intermediateDER))
        let leaf = try setup.leafOnly(urls: [setup.http.url("/int.cer")])
        let chain = try CertificateChain(pem: leaf.certificatePEM)
        let options = ProbeOptions(useSystemTrustStore: false, additionalSystemAnchorsFile: setup.rootPath)
        /// The chain judged as `cert` judges it: ChainVerifier over the prober's anchors, caIssuers
        /// fetched by NetworkIssuerFetching through the prober.
        func trust(with prober: Prober) async -> TrustEvaluation {
            let verifier = ChainVerifier(store: prober.trustStore, anchors: prober.options.anchors, at: prober.evaluationDate,
                                         ruleSet: .current, ctLogs: .apple, issuers: NetworkIssuerFetching(prober: prober, timeout: 5))
            return await verifier.evaluate(chain, name: "127.0.0.1").trust
        }

        // A runtime of its own, alive: the missing intermediate is fetched and the chain verifies.
        let live = try ProbeRuntime(configuration: .init(engineThreads: 2, threadNamePrefix: "fetch-live"))
        let trusted = await trust(with: try Prober(options: options, runtime: live))
        #expect(trusted.isTrusted, "\(trusted.problems)")
        #expect(setup.http.requests("/int.cer") == 1)
        try await live.shutdown()

        // The Prober's runtime shut down: the fetch is refused there; the shared runtime, alive,
        // is never used in its place.
        let stopped = try ProbeRuntime(configuration: .init(engineThreads: 2, threadNamePrefix: "fetch-stop"))
        let prober = try Prober(options: options, runtime: stopped)
        try await stopped.shutdown()
        let refused = await trust(with: prober)
        #expect(!refused.isTrusted)
        #expect(refused.fetchedIssuers?.first?.failure == "not fetched: the probe runtime is shut down", "\(String(describing: refused.fetchedIssuers))")
        #expect(setup.http.requests("/int.cer") == 1, "the fetch ran on another runtime")
    }
}

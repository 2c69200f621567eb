import Testing
@testable import ATSProbe
import ATSTrust
import ATSTestServers

/// Issue 24, "caIssuers requests": a server's certificate chooses the caIssuers URLs, so a hostile
/// target could aim the auditor at its own network. The fetcher checks every address a URL's host
/// resolves to before connecting: for a target at a global address, a URL on the auditor's
/// loopback is refused (the loopback server sees no request, the reason says why), by address
/// and by a name that resolves to loopback; `--allow-private-fetch` lets it through. (A probe of
/// a loopback server cannot show the refusal end to end: its target is loopback itself, which
/// may fetch from loopback; IssuerFetchAddressPolicyTests covers every address class.)
@Suite struct IssuerFetchRefusalTests {
    static let globalTarget = "93.184.216.34"

    @Test func loopbackURLsForAGlobalTargetAreRefusedBeforeConnecting() async throws {
        let pki = try TestPKI(withIntermediate: true)
        let http = try TestHTTPServer.start()
        defer { http.stop() }
        http.set("/int.cer", .init(body: pki.intermediate!.certificateDER))
        let refusing = IssuerFetchAddressPolicy(targetAddress: Self.globalTarget, allowPrivateFetch: false)

        let byAddress = await (try ProbeRuntime.shared).binding { await IssuerFetcher.download(http.url("/int.cer"), policy: refusing, deadline: Deadline(secondsFromNow: 5)) }
        #expect(byAddress == .failure("refused: 127.0.0.1 is a loopback address and the target is not "
                                      + "(a server must not aim the auditor at its own network)"))
        // A name is checked after it is resolved: localhost is loopback whatever its spelling.
        let byName = await (try ProbeRuntime.shared).binding { await IssuerFetcher.download("http://localhost:\(http.port)/int.cer", policy: refusing,
                                                  deadline: Deadline(secondsFromNow: 5)) }
        guard case .failure(let reason) = byName else {
            Issue.record("localhost was fetched: \(byName)")
            return
        }
        #expect(reason.hasPrefix("refused: ") && reason.contains("is a loopback address"), "\(reason)")
        #expect(http.requests("/int.cer") == 0, "the auditor's loopback server was reached")

        let allowed = await (try ProbeRuntime.shared).binding { await IssuerFetcher.download(http.url("/int.cer"),
                                                   policy: IssuerFetchAddressPolicy(targetAddress: Self.globalTarget, allowPrivateFetch: true),
                                                   deadline: Deadline(secondsFromNow: 5)) }
        #expect(allowed == .certificates([pki.intermediate!.certificateDER]))
        #expect(http.requests("/int.cer") == 1)
    }
}

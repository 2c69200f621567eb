import Foundation
import Testing
import ATSPolicy
@testable import ATSProbe
import ATSTrust
import ATSTestServers
import TLSFacts

/// Missing intermediates fetched by caIssuers URL, as Apple's trustd does: the server sends
/// only its leaf; the intermediate is served from a loopback HTTP server named in the leaf.
@Suite("caIssuers fetching")
struct IssuerFetchTests {
    /// A PKI with an intermediate, the HTTP server, a leaf whose caIssuers URL names `path`,
    /// and a TLS server that sends only that leaf. Everything is stopped by `run`'s end.
    struct Setup {
        let pki: TestPKI
        let http: TestHTTPServer
        let rootPath: String

        init() throws {
            pki = try TestPKI(withIntermediate: true)
            http = try TestHTTPServer.start()
            rootPath = try pki.writeRootPEM()
        }

        var intermediateDER: [UInt8] { pki.intermediate!.certificateDER }

        /// The leaf alone (its chain left out), naming `urls` as caIssuers.
        func leafOnly(urls: [String]) throws -> TestIdentity {
            let issued = try pki.issue(CertificateSpec(caIssuersURLs: urls))
            return issued.leafOnly
        }

        /// The root as a system anchor (the test seam), fetching on unless `aia` is false.
        func prober(aia: Bool = true) throws -> Prober {
            try Prober(options: ProbeOptions(useSystemTrustStore: false, additionalSystemAnchorsFile: rootPath,
                                             fetchesMissingIssuers: aia))
        }

        func observe(_ identity: TestIdentity, with prober: Prober, timeout: Double = 5) async throws -> Observation {
            let server = try TestTLSServer.start(TLSServerConfiguration(identity: identity))
            defer { server.stop() }
            return try await prober.probe(loopbackRequest(port: server.port, timeout: timeout)).get()
        }
    }

    @Test func derIntermediateIsFetchedOnceAndTheChainVerifies() async throws {
        let setup = try Setup()
        defer { setup.http.stop() }
        setup.http.set("/int.cer", .init(body: setup.intermediateDER))
        let identity = try setup.leafOnly(urls: [setup.http.url("/int.cer")])
        let prober = try setup.prober()
        let observation = try await setup.observe(identity, with: prober)
        #expect(observation.chain.count == 1, "the server sent only its leaf")
        #expect(observation.trust.isTrusted, "\(observation.trust.problems)")
        #expect(observation.trust.anchor == .system)
        #expect(observation.trust.path?.count == 3)
        let fetch = try #require(observation.trust.fetchedIssuers?.first)
        #expect(fetch.url == setup.http.url("/int.cer"))
        #expect(fetch.failure == nil)
        #expect(fetch.certificates.map(\.subject) == [setup.pki.intermediate.map { _ in "O=atsprobe tests,CN=atsprobe Test Root Intermediate" }!])
        let warning = try #require(TrustAdvice.missingIntermediateWarning(observation.trust))
        #expect(warning.contains("Android, curl, Firefox"))

        // A second probe of the run reuses the answer: one request in all.
        let again = try await setup.observe(identity, with: prober)
        #expect(again.trust.isTrusted)
        #expect(setup.http.requests("/int.cer") == 1)
        #expect(prober.issuerFetchesMade == 1)
    }

    /// A public-root leaf with embedded SCTs whose issuer was fetched: the SCTs are checked with
    /// the fetched issuer's key (not `noIssuer`), so CT is met as on Apple.
    @Test func embeddedSCTsAreCheckedWithTheFetchedIssuer() async throws {
        let setup = try Setup()
        defer { setup.http.stop() }
        setup.http.set("/int.cer", .init(body: setup.intermediateDER))
        var spec = TrustClock.spec(inclusiveDays: 90, embeddedSCTs: TrustLogs.threeOperators)
        spec.caIssuersURLs = [setup.http.url("/int.cer")]
        let issued = try setup.pki.issue(spec)
        let leafOnly = issued.leafOnly
        let prober = try Prober(options: ProbeOptions(useSystemTrustStore: false, evaluationDate: TrustClock.judged,
                                                      additionalSystemAnchorsFile: setup.rootPath, ctLogs: TrustLogs.list))
        let observation = try await setup.observe(leafOnly, with: prober)
        #expect(observation.trust.anchor == .system)
        #expect(observation.leaf?.embeddedSCTs.map(\.signature) == [.valid, .valid, .valid])
        let ct = AppleCertificatePolicy.judgement(in: observation, at: TrustClock.judged, rules: .documented, logs: TrustLogs.list).certificateTransparency
        #expect(ct.verdict == .compliant, "\(ct.reason)")
    }

    @Test func certsOnlyPKCS7IsAccepted() async throws {
        let setup = try Setup()
        defer { setup.http.stop() }
        setup.http.set("/int.p7c", .init(body: try TestPKI.certsOnlyPKCS7([setup.intermediateDER]), contentType: "application/pkcs7-mime"))
        let observation = try await setup.observe(try setup.leafOnly(urls: [setup.http.url("/int.p7c")]), with: try setup.prober())
        #expect(observation.trust.isTrusted, "\(observation.trust.problems)")
        #expect(observation.trust.fetchedIssuers?.first?.certificates.count == 1)
    }

    /// --no-aia (watchOS): nothing is fetched and the missing intermediate is named.
    @Test func noAIAFetchesNothing() async throws {
        let setup = try Setup()
        defer { setup.http.stop() }
        setup.http.set("/int.cer", .init(body: setup.intermediateDER))
        let observation = try await setup.observe(try setup.leafOnly(urls: [setup.http.url("/int.cer")]), with: try setup.prober(aia: false))
        #expect(observation.trust.problems.map(\.kind) == [.incompleteChain])
        #expect(observation.trust.problems.first?.detail.contains("caIssuers fetching is off") == true)
        #expect(setup.http.requests("/int.cer") == 0)
        #expect(observation.trust.fetchedIssuers == nil)
    }

    /// A failed fetch is named in the reason; a later good URL in the same list is still tried.
    @Test(arguments: [
        ("/missing", TestHTTPServer.Response(status: 404, body: []), "HTTP 404"),
        ("/big", TestHTTPServer.Response(body: [UInt8](repeating: 0x30, count: 70 * 1024)), "response larger than 64 KiB"),
        ("/text", TestHTTPServer.Response(body: Array("hello".utf8)), "the body (5 bytes) is not a DER or PKCS#7 certificate"),
        ("/chunked", TestHTTPServer.Response(body: Array("5\r\nhello\r\n0\r\n\r\n".utf8), headers: ["Transfer-Encoding: chunked"]), "Transfer-Encoding chunked not supported"),
    ])
    func failedFetchIsNamed(path: String, response: TestHTTPServer.Response, reason: String) async throws {
        let setup = try Setup()
        defer { setup.http.stop() }
        if response.status != 404 { setup.http.set(path, response) }
        let observation = try await setup.observe(try setup.leafOnly(urls: [setup.http.url(path)]), with: try setup.prober())
        #expect(observation.trust.problems.map(\.kind) == [.incompleteChain])
        let detail = observation.trust.problems.first?.detail ?? ""
        #expect(detail.contains("caIssuers fetch failed: \(setup.http.url(path)): \(reason)"), "\(detail)")

        // The same leaf naming a good URL after the bad one verifies.
        setup.http.set("/good.cer", .init(body: setup.intermediateDER))
        let second = try await setup.observe(try setup.leafOnly(urls: [setup.http.url(path), setup.http.url("/good.cer")]),
                                             with: try setup.prober())
        #expect(second.trust.isTrusted, "\(second.trust.problems)")
        #expect(second.trust.fetchedIssuers?.count == 2)
    }

    /// https and other schemes are skipped, as Apple fetches http only.
    @Test func httpsIsSkipped() async throws {
        let setup = try Setup()
        defer { setup.http.stop() }
        let observation = try await setup.observe(try setup.leafOnly(urls: ["https://127.0.0.1:1/int.cer"]), with: try setup.prober())
        #expect(observation.trust.problems.map(\.kind) == [.incompleteChain])
        #expect(observation.trust.fetchedIssuers?.first?.failure == "skipped: Apple fetches http caIssuers URLs only")
    }

    /// A caIssuers server that accepts and never answers cannot hold the probe past its deadline.
    @Test func silentServerEndsByTheDeadline() async throws {
        let setup = try Setup()
        defer { setup.http.stop() }
        let silent = try HostileServer.start(.silent)
        defer { silent.stop() }
        let server = try TestTLSServer.start(TLSServerConfiguration(identity: try setup.leafOnly(urls: ["http://127.0.0.1:\(silent.port)/int.cer"])))
        defer { server.stop() }
        let prober = try setup.prober()
        let start = Date()
        let observation = try await prober.probe(loopbackRequest(port: server.port, timeout: 1.5)).get()
        // The probe's own deadline (1.5 s) bounds the fetch: "timed out after 0 bytes" is the read
        // giving up at the deadline (the silent server would hold the connection for 120 s). The
        // wall clock is only loosely bounded: in a full parallel run the awaiting task can wait
        // for a cooperative thread.
        #expect(Date().timeIntervalSince(start) < 60)
        #expect(observation.trust.fetchedIssuers?.first?.failure == "timed out after 0 bytes")
        #expect(observation.trust.problems.map(\.kind) == [.incompleteChain])
        #expect(observation.trust.fetchedIssuers?.first?.failure?.hasPrefix("timed out") == true, "\(String(describing: observation.trust.fetchedIssuers))")
    }

    /// http URLs Apple would fetch, and the forms refused before any connection.
    @Test func urlParsing() async {
        let plain = CAIssuers.HTTPURL("http://ca.example/int.cer")
        #expect(plain == CAIssuers.HTTPURL("HTTP://ca.example/int.cer"))
        #expect(plain?.host == "ca.example" && plain?.port == 80 && plain?.path == "/int.cer")
        let v6 = CAIssuers.HTTPURL("http://[::1]:8080")
        #expect(v6?.host == "::1" && v6?.port == 8080 && v6?.path == "/" && v6?.hostHeader == "[::1]:8080")
        #expect(CAIssuers.HTTPURL("http://ca.example:99999/x") == nil)
        #expect(CAIssuers.HTTPURL("http://user@ca.example/x") == nil)
        #expect(CAIssuers.HTTPURL("http://ca.example/a b") == nil)
        #expect(CAIssuers.HTTPURL("http://ca.example/\r\nX-Injected: 1") == nil)
        #expect(CAIssuers.HTTPURL("ldap://ca.example/x") == nil)
        let ftp = await IssuerFetcher.download("ftp://ca.example/x", policy: IssuerFetchAddressPolicy(allowsNonGlobal: true), deadline: Deadline(secondsFromNow: 1))
        #expect(ftp == .failure("skipped: Apple fetches http caIssuers URLs only"))
    }

    /// The three body forms trustd accepts, in its order, and nothing else.
    @Test func bodyDecoding() throws {
        let pki = try TestPKI(withIntermediate: true)
        let der = pki.intermediate!.certificateDER
        #expect(CAIssuers.decodeCertificates(der) == [der])
        #expect(CAIssuers.decodeCertificates(try TestPKI.certsOnlyPKCS7([der, pki.root.certificateDER])).count == 2)
        #expect(CAIssuers.decodeCertificates(Array(pki.intermediate!.certificatePEM.utf8)) == [der])
        #expect(CAIssuers.decodeCertificates(Array(der.dropLast())).isEmpty)
        #expect(CAIssuers.parse(Array("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc".utf8))
                == .failure("the body (3 bytes) is not a DER or PKCS#7 certificate"))
        #expect(CAIssuers.parse(Array("HTTP/1.1 301 Moved\r\nLocation: /x\r\n\r\n".utf8)) == .failure("HTTP 301"))
        #expect(CAIssuers.parse(Array("garbage".utf8)) == .failure("no complete HTTP response head"))
    }
}

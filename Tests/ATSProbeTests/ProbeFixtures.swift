import Foundation
import ATSProbe
import ATSTestServers
import TLSFacts

/// Shared helpers: a test PKI whose root is passed as a user anchor, servers that are always
/// stopped, and requests to 127.0.0.1.
struct ProbeFixture {
    let pki: TestPKI
    let rootPath: String
    let prober: Prober

    init(withIntermediate: Bool = false) throws {
        pki = try TestPKI(withIntermediate: withIntermediate)
        rootPath = try pki.writeRootPEM()
        prober = try Prober(options: ProbeOptions(caFile: rootPath, useSystemTrustStore: false))
    }

    /// Starts a server, runs `body`, stops the server whatever happens.
    func withServer<T>(_ configuration: TLSServerConfiguration,
                       _ body: (TestTLSServer) async throws -> T) async throws -> T {
        try await TestTLSServer.serving(configuration, body)
    }

    /// Serves `spec` from this PKI with the given server settings and probes it once.
    func probe(_ spec: CertificateSpec = CertificateSpec(), offer: ClientOffer = Prober.widestOffer,
               configure: (inout TLSServerConfiguration) -> Void = { _ in }) async throws -> ProbeResult {
        var configuration = TLSServerConfiguration(identity: try pki.issue(spec))
        configure(&configuration)
        return try await withServer(configuration) { server in
            await prober.probe(ProbeRequest(target: Target(host: "127.0.0.1", port: server.port), offer: offer, timeout: 5))
        }
    }
}

func loopbackRequest(port: Int, host: String = "127.0.0.1", offer: ClientOffer = Prober.widestOffer,
                     timeout: Double = 5, http: Bool = false) -> ProbeRequest {
    ProbeRequest(target: Target(host: host, port: port), offer: offer, httpRequest: http, timeout: timeout)
}

func offer(_ min: TLSVersion, _ max: TLSVersion, _ codes: [UInt16]? = nil) -> ClientOffer {
    ClientOffer(minVersion: min, maxVersion: max,
                suites: codes.map { $0.map { CipherSuite(rawValue: $0) } } ?? Prober.widestOffer.suites)
}

extension Result {
    var observation: Success? { try? get() }
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

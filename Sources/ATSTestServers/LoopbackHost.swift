import Foundation

/// The usual loopback fixture: a fresh `TestPKI`, its root written for `--ca-file`, and a TLS
/// server on 127.0.0.1 with a leaf from it (for 127.0.0.1 and localhost unless `spec` says
/// otherwise). The caller stops it (`defer { host.stop() }`); the root's file goes with the PKI.
package final class LoopbackHost: Sendable {
    package let pki: TestPKI
    /// The root's PEM file (for --ca-file / caFile).
    package let rootPath: String
    package let server: TestTLSServer

    package init(_ spec: CertificateSpec = CertificateSpec()) throws {
        pki = try TestPKI()
        rootPath = try pki.writeRootPEM()
        server = try TestTLSServer.start(TLSServerConfiguration(identity: try pki.issue(spec)))
    }

    /// https://127.0.0.1:PORT/
    package var url: String { "https://127.0.0.1:\(server.port)/" }

    /// Stops the server (idempotent).
    package func stop() { server.stop() }

    deinit { server.stop() }
}

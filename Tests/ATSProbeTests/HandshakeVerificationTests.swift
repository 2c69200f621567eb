import Foundation
import Testing
@testable import ATSProbe
import ATSTestServers
import COpenSSL
@testable import OpenSSLSupport
import TLSFacts

/// The probe's handshakes do not verify the served chain inside libssl: ATSTrust judges it once
/// per distinct chain and name (`ChainTrust`), and libssl's own verification (one
/// X509_verify_cert per handshake under SSL_VERIFY_NONE, its result never read) is replaced by
/// `SSLContext.skipChainVerification` (its `noVerification` callback).
@Suite("Handshake verification")
struct HandshakeVerificationTests {
    @Test func libsslVerifiesNoChainInTheHandshake() async throws {
        let fixture = try ProbeFixture(withIntermediate: true)
        let identity = try fixture.pki.issue(CertificateSpec())
        let context = try ClientContext(offer: Prober.widestOffer)
        try await fixture.withServer(TLSServerConfiguration(identity: identity)) { server in
            let outcome = try Self.blockingHandshake(context: context, port: server.port)
            #expect(outcome.connected, "the handshake completes whatever the chain")
            // X509_verify_cert would have left its own error (no anchor in libssl's store: 20,
            // "unable to get local issuer certificate") and the chain it built.
            #expect(outcome.verifyResult == Int(X509_V_ERR_APPLICATION_VERIFICATION))
            #expect(!outcome.hasVerifiedChain)
            #expect(outcome.servedCertificates == 2, "the chain as served (leaf + intermediate) is still there for ATSTrust")
        }
    }

    // What the probe's own observation says for the same kind of server (trust is judged, the
    // anchor is the user's, both certificates are there): ProbeTrustTests.userAnchorWithIntermediate.

    struct Outcome {
        var connected: Bool
        var verifyResult: Int
        var hasVerifiedChain: Bool
        var servedCertificates: Int
    }

    /// One handshake over a blocking socket (send and receive bounded by 5 s each).
    static func blockingHandshake(context: ClientContext, port: Int) throws -> Outcome {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(connected == 0)
        let owner = try SSLObject(context: context.context)
        _ = owner.setFileDescriptor(fd)
        let done = owner.connect() == 1
        // What libssl kept of its own verification: asked of the SSL itself (a test may borrow it).
        return owner.withPointer { ssl in
            Outcome(connected: done, verifyResult: Int(SSL_get_verify_result(ssl)),
                    hasVerifiedChain: SSL_get0_verified_chain(ssl) != nil,
                    servedCertificates: owner.peerCertificateChain(limit: 16).count)
        }
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization
internal import COpenSSL
internal import CATSProbeShims
import TLSFacts

/// One client SSL_CTX for one offer. Set up entirely here, so /etc/ssl/openssl.cnf never
/// changes what is offered; shared by every handshake with that offer.
final class ClientContext: @unchecked Sendable {
    // Immutable after init; OpenSSL allows SSL_new from many threads on a configured SSL_CTX.
    let pointer: OpaquePointer

    /// Every group we can name, strongest-curves first; finite-field last (TLS 1.3 only).
    static let groups = "X25519:P-256:P-384:P-521:X448:ffdhe2048:ffdhe3072:ffdhe4096:ffdhe6144:ffdhe8192"
    /// Permissive: SHA-1 and SHA-224 last, so servers that can only sign with them are still observed.
    static let signatureAlgorithms = [
        "ECDSA+SHA256", "ECDSA+SHA384", "ECDSA+SHA512", "ed25519", "ed448",
        "rsa_pss_rsae_sha256", "rsa_pss_rsae_sha384", "rsa_pss_rsae_sha512",
        "rsa_pss_pss_sha256", "rsa_pss_pss_sha384", "rsa_pss_pss_sha512",
        "RSA+SHA256", "RSA+SHA384", "RSA+SHA512",
        "ECDSA+SHA224", "RSA+SHA224", "ECDSA+SHA1", "RSA+SHA1",
    ].joined(separator: ":")

    init(offer: ClientOffer) throws(ProbeFailure) {
        OpenSSLErrors.clear()
        guard let ctx = SSL_CTX_new(TLS_client_method()) else {
            throw ProbeFailure(kind: .other, detail: "SSL_CTX_new failed: \(OpenSSLErrors.describe(OpenSSLErrors.drain()))")
        }
        pointer = ctx
        func fail(_ what: String) -> ProbeFailure {
            ProbeFailure(kind: .clientRejected, detail: "cannot offer \(offer): \(what) \(OpenSSLErrors.describe(OpenSSLErrors.drain()))")
        }

        SSL_CTX_set_security_level(ctx, 0)
        _ = SSL_CTX_set_options(ctx, CATSProbeShims_SSL_OP_LEGACY_SERVER_CONNECT() | CATSProbeShims_SSL_OP_IGNORE_UNEXPECTED_EOF())
        guard CATSProbeShims_SSL_CTX_set_min_proto_version(ctx, Int32(offer.minVersion.rawValue)) == 1,
              CATSProbeShims_SSL_CTX_set_max_proto_version(ctx, Int32(offer.maxVersion.rawValue)) == 1 else {
            throw fail("protocol range")
        }

        let catalog = CipherCatalog.shared
        let known = offer.suites.compactMap { catalog.byCode[$0] }
        let legacy = known.filter { !$0.suite.isTLS13 }.map(\.openSSLName)
        let modern = known.filter { $0.suite.isTLS13 }.map(\.openSSLName)
        // "-ALL" leaves no TLS 1.2 suite; set_cipher_list refuses an empty string.
        guard SSL_CTX_set_cipher_list(ctx, legacy.isEmpty ? "-ALL" : legacy.joined(separator: ":")) == 1
                || legacy.isEmpty else { throw fail("cipher list") }
        guard SSL_CTX_set_ciphersuites(ctx, modern.joined(separator: ":")) == 1 else { throw fail("TLS 1.3 suites") }
        guard CATSProbeShims_SSL_CTX_set1_groups_list(ctx, ClientContext.groups) == 1 else { throw fail("groups") }
        guard CATSProbeShims_SSL_CTX_set1_sigalgs_list(ctx, ClientContext.signatureAlgorithms) == 1 else {
            throw fail("signature algorithms")
        }
        // Trust is judged after the handshake, on its own; never abort on it.
        SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nil)
        let alpn: [UInt8] = [8] + Array("http/1.1".utf8)
        guard SSL_CTX_set_alpn_protos(ctx, alpn, UInt32(alpn.count)) == 0 else { throw fail("ALPN") }
        OpenSSLErrors.clear()
    }

    deinit { SSL_CTX_free(pointer) }
}

/// One context per distinct offer, built on first use.
final class ClientContextCache: @unchecked Sendable {
    private let contexts = Mutex<[ClientOffer: ClientContext]>([:])

    func context(for offer: ClientOffer) throws(ProbeFailure) -> ClientContext {
        try contexts.withLock { contexts throws(ProbeFailure) in
            if let context = contexts[offer] { return context }
            let context = try ClientContext(offer: offer)
            contexts[offer] = context
            return context
        }
    }
}

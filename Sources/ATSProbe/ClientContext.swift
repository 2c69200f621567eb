#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization
internal import COpenSSL
internal import CATSProbeShims
internal import OpenSSLSupport
import TLSFacts

/// One client SSL_CTX for the offers that differ only in their protocol range (`Settings`):
/// their suites, groups, signature algorithms and ALPN are the context's, and each connection's
/// SSL is given its offer's range (`TLSSession`), which is all a ClientHello takes from it.
/// nscurl's tests offer the same lists from TLS 1.0, 1.1 or 1.2 up: a target's 10 offers need 4
/// contexts, not 10, and each SSL_CTX costs about 1.65 M instructions to set up
/// (docs/performance.md, "Start-up"). Set up entirely here, so /etc/ssl/openssl.cnf never
/// changes what is offered; shared by every handshake with those settings.
final class ClientContext: @unchecked Sendable {
    /// What a context is built from: an offer without its protocol range.
    struct Settings: Hashable {
        let suites: [CipherSuite]
        let groups: [NamedGroup]
        let signatureSchemes: [SignatureScheme]
        let alpn: [String]

        init(_ offer: ClientOffer) {
            suites = offer.suites
            groups = offer.groups
            signatureSchemes = offer.signatureSchemes
            alpn = offer.alpn
        }
    }

    // Immutable after init; OpenSSL allows SSL_new from many threads on a configured SSL_CTX.
    /// The SSL_CTX's owner: each connection's SSL is an `SSLObject` made from it (TLSSession).
    let context: SSLContext

    /// OpenSSL 3.0's names for the groups it can offer. X25519MLKEM768 is not among them: an
    /// offer's groups without a name here are left out of the ClientHello, and the verdict is
    /// what it would be had the server picked a classical group (docs/rules.md, "The offer").
    static let groupNames: [NamedGroup: String] = [
        .x25519: "X25519", .secp256r1: "P-256", .secp384r1: "P-384", .secp521r1: "P-521", .x448: "X448",
        .ffdhe2048: "ffdhe2048", .ffdhe3072: "ffdhe3072", .ffdhe4096: "ffdhe4096", .ffdhe6144: "ffdhe6144",
        .ffdhe8192: "ffdhe8192",
    ]
    /// OpenSSL's names for signature schemes. In TLS 1.2 "ECDSA+SHA256" is any curve with SHA-256;
    /// in TLS 1.3 it is ecdsa_secp256r1_sha256 only, as RFC 8446 binds the curve.
    static let schemeNames: [SignatureScheme: String] = [
        .rsaPKCS1SHA1: "RSA+SHA1", .ecdsaSHA1: "ECDSA+SHA1", .rsaPKCS1SHA224: "RSA+SHA224", .ecdsaSHA224: "ECDSA+SHA224",
        .rsaPKCS1SHA256: "RSA+SHA256", .ecdsaSecp256r1SHA256: "ECDSA+SHA256", .rsaPKCS1SHA384: "RSA+SHA384",
        .ecdsaSecp384r1SHA384: "ECDSA+SHA384", .rsaPKCS1SHA512: "RSA+SHA512", .ecdsaSecp521r1SHA512: "ECDSA+SHA512",
        .rsaPSSRSAESHA256: "rsa_pss_rsae_sha256", .rsaPSSRSAESHA384: "rsa_pss_rsae_sha384",
        .rsaPSSRSAESHA512: "rsa_pss_rsae_sha512", .ed25519: "ed25519", .ed448: "ed448",
        .rsaPSSPSSSHA256: "rsa_pss_pss_sha256", .rsaPSSPSSSHA384: "rsa_pss_pss_sha384", .rsaPSSPSSSHA512: "rsa_pss_pss_sha512",
    ]

    /// The context for `offer`'s settings; its own protocol range, the default of an SSL made
    /// from it, is `offer`'s (every probe's SSL sets its own: `TLSSession`).
    init(offer: ClientOffer) throws(ProbeFailure) {
        OpenSSLErrors.clear()
        do {
            context = try SSLContext(.client)
        } catch {
            throw ProbeFailure(kind: .other, detail: "SSL_CTX_new failed: \(OpenSSLErrors.describe(error.entries))")
        }
        let ctx = context
        func fail(_ what: String) -> ProbeFailure {
            ProbeFailure(kind: .clientRejected, detail: "cannot offer \(offer): \(what) \(OpenSSLErrors.describe(OpenSSLErrors.drain()))")
        }

        ctx.setSecurityLevel(0)
        ctx.setOptions(CATSProbeShims_SSL_OP_LEGACY_SERVER_CONNECT() | CATSProbeShims_SSL_OP_IGNORE_UNEXPECTED_EOF())
        guard ctx.setMinProtocolVersion(Int32(offer.minVersion.rawValue)) == 1,
              ctx.setMaxProtocolVersion(Int32(offer.maxVersion.rawValue)) == 1 else {
            throw fail("protocol range")
        }

        let catalog = CipherCatalog.shared
        let known = offer.suites.compactMap { catalog.byCode[$0] }
        let legacy = known.filter { !$0.suite.isTLS13 }.map(\.openSSLName)
        let modern = known.filter { $0.suite.isTLS13 }.map(\.openSSLName)
        // "-ALL" leaves no TLS 1.2 suite; set_cipher_list refuses an empty string.
        guard ctx.setCipherList(legacy.isEmpty ? "-ALL" : legacy.joined(separator: ":")) == 1
                || legacy.isEmpty else { throw fail("cipher list") }
        guard ctx.setCipherSuites(modern.joined(separator: ":")) == 1 else { throw fail("TLS 1.3 suites") }
        let groups = offer.groups.compactMap { ClientContext.groupNames[$0] }
        guard !groups.isEmpty, ctx.setGroupsList(groups.joined(separator: ":")) == 1 else {
            throw fail("groups")
        }
        // Duplicates (Apple sends rsa_pss_rsae_sha384 twice) would make OpenSSL refuse the list.
        var seen = Set<String>()
        let schemes = offer.signatureSchemes.compactMap { ClientContext.schemeNames[$0] }.filter { seen.insert($0).inserted }
        guard !schemes.isEmpty, ctx.setSignatureAlgorithmsList(schemes.joined(separator: ":")) == 1 else {
            throw fail("signature algorithms")
        }
        // Trust is judged after the handshake, on its own (ATSTrust's `ChainTrust`, once per
        // distinct chain and name); never abort on it (SSL_VERIFY_NONE). And never verify the
        // chain inside the handshake either: with SSL_VERIFY_NONE libssl still runs
        // X509_verify_cert on every served chain and keeps only its result, which nothing here
        // reads (SSL_get_verify_result, SSL_get0_verified_chain); that was one chain
        // verification per handshake, 10 per target (scripts/count-trust-evaluations). The SSL's
        // verify result reads "application verification failure" and it has no verified chain,
        // so OpenSSL's own CT validation, which needs one, is skipped as before (the SCTs are
        // read and checked by `StatusReader` and `SCTVerifier`).
        ctx.skipChainVerification()
        let alpn: [UInt8] = offer.alpn.filter { (1...255).contains($0.utf8.count) }.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) }
        guard alpn.isEmpty || ctx.setALPNProtocols(alpn) == 0 else { throw fail("ALPN") }
        OpenSSLErrors.clear()
    }
}

/// One context per distinct `ClientContext.Settings`, built on first use.
final class ClientContextCache: @unchecked Sendable {
    private let contexts = Mutex<[ClientContext.Settings: ClientContext]>([:])

    /// Built outside the lock: a run's first handshakes all want their contexts at once, and an
    /// SSL_CTX takes about 2 million instructions to set up, so building them one after another
    /// under the lock held the tenth ClientHello back by the other nine. Two threads that race
    /// for one offer build it twice; the first stored is kept.
    func context(for offer: ClientOffer) throws(ProbeFailure) -> ClientContext {
        let settings = ClientContext.Settings(offer)
        if let context = contexts.withLock({ $0[settings] }) { return context }
        let built = try ClientContext(offer: offer)
        return contexts.withLock { contexts in
            if let context = contexts[settings] { return context }
            contexts[settings] = built
            return built
        }
    }

    /// Contexts built so far (tests).
    var count: Int { contexts.withLock { $0.count } }
}

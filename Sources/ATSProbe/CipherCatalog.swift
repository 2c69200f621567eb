internal import COpenSSL
internal import CATSProbeShims
internal import OpenSSLSupport
import TLSFacts

/// The cipher suites this OpenSSL build can speak, by IANA code point, with OpenSSL's names.
/// Built once by listing a security-level-0 "ALL:COMPLEMENTOFALL" client.
struct CipherCatalog: Sendable {
    struct Entry: Sendable {
        let suite: CipherSuite
        let openSSLName: String
        /// Authenticated (RSA, ECDSA, or TLS 1.3) and encrypting: worth offering to a web server.
        let isOfferable: Bool
        /// Sort key for a strong-first order: lower is stronger.
        let strengthRank: [Int]
    }

    /// In OpenSSL's listing order.
    let entries: [Entry]
    let byCode: [CipherSuite: Entry]

    static let shared = CipherCatalog()

    private init() {
        var entries: [Entry] = []
        if let context = try? SSLContext(.client) {
            context.setSecurityLevel(0)
            _ = context.setMinProtocolVersion(0)
            _ = context.setMaxProtocolVersion(0)
            _ = context.setCipherList("ALL:COMPLEMENTOFALL")
            if let ssl = try? SSLObject(context: context) {
                entries = ssl.ciphers.map(CipherCatalog.entry(for:))
            }
        }
        OpenSSLErrors.clear()
        var seen = Set<CipherSuite>()
        self.entries = entries.filter { seen.insert($0.suite).inserted }
        self.byCode = Dictionary(uniqueKeysWithValues: self.entries.map { ($0.suite, $0) })
        self.offerableStrongFirst = CipherCatalog.strongFirst(self.entries)
    }

    private static func entry(for cipher: OpaquePointer) -> Entry {
        let suite = CipherSuite(rawValue: SSL_CIPHER_get_protocol_id(cipher))
        let name = String(cString: SSL_CIPHER_get_name(cipher))
        let auth = SSL_CIPHER_get_auth_nid(cipher)
        let kx = SSL_CIPHER_get_kx_nid(cipher)
        let encrypts = SSL_CIPHER_get_cipher_nid(cipher) != NID_undef
        let offerable = encrypts && [NID_auth_rsa, NID_auth_ecdsa, NID_auth_any].contains(auth)
            && [NID_kx_rsa, NID_kx_ecdhe, NID_kx_dhe, NID_kx_any].contains(kx)
        let kxRank: Int = switch kx {
        case NID_kx_any: 0
        case NID_kx_ecdhe: 1
        case NID_kx_dhe: 2
        default: 3
        }
        let aeadRank = SSL_CIPHER_is_aead(cipher) != 0 ? 0 : 1
        let bits = Int(SSL_CIPHER_get_bits(cipher, nil))
        // Below 128 bits (3DES) goes last whatever the key exchange.
        let weak = bits < 128 ? 1 : 0
        return Entry(suite: suite, openSSLName: name, isOfferable: offerable,
                     strengthRank: [weak, kxRank, aeadRank, -bits])
    }

    /// Every offerable suite, strongest first, for the widest offer.
    let offerableStrongFirst: [CipherSuite]

    private static func strongFirst(_ entries: [Entry]) -> [CipherSuite] {
        let indexed = entries.enumerated().filter { $0.element.isOfferable }
        return indexed.sorted { a, b in
            a.element.strengthRank == b.element.strengthRank
                ? a.offset < b.offset
                : a.element.strengthRank.lexicographicallyPrecedes(b.element.strengthRank)
        }.map(\.element.suite)
    }
}

import TLSFacts

/// What other handshakes with the same server showed about a failed one, kept as data on the
/// `FailureReason` and rendered once by `FailureReason.message`. The advice reads the data
/// (which protocol, which suites) instead of searching the sentence.
public enum ReasonContext: Sendable, Hashable {
    /// No protocol in common, and the best the server completed anywhere is below this offer.
    case serverHighestProtocol(TLSVersion)
    /// No protocol in common, yet the server completes this protocol under other offers.
    case serverCompletesElsewhere(TLSVersion)
    /// No suite in common: under other offers the server chose these, which this offer lacks.
    case serverChoosesOutsideOffer([CipherSuite])
    /// The server refused the ClientHello for something other than its protocols and suites:
    /// the alert it sent, and what a completed handshake used that Apple's client does not offer.
    case clientHelloRefused(alert: TLSAlert?, OfferMismatch)

    /// The reason's clauses: the statement and this context's clause after it, or, for a refused
    /// ClientHello, one clause that says what the alert does not (the alert alone would mislead).
    public func clauses(after statement: String) -> [Clause] {
        switch self {
        case .serverHighestProtocol(let best):
            [Clause(statement), Clause(.serverHighestProtocol(best), "the server's highest protocol is \(best)")]
        case .serverCompletesElsewhere(let best): [Clause(statement), Clause("the server completes \(best) handshakes with other offers")]
        case .serverChoosesOutsideOffer(let suites):
            [Clause(statement), Clause(.serverChose(suites.sorted()),
                                       "the server chooses \(suites.sorted().map(\.ianaName).joined(separator: " or ")), which this offer does not include")]
        case .clientHelloRefused(let alert, let mismatch):
            [Clause("server refused Apple's ClientHello\(alert.map { " (\($0.name) alert)" } ?? ""): \(mismatch)")]
        }
    }

    /// The suites this context names as the server's choices.
    public var suitesChosen: [CipherSuite] {
        if case .serverChoosesOutsideOffer(let suites) = self { return suites }
        return []
    }
}

/// The first thing a completed handshake used that Apple's ClientHello does not hold.
public enum OfferMismatch: Sendable, Hashable, CustomStringConvertible {
    /// The key exchange group, with the groups the offer holds.
    case groupNotOffered(NamedGroup, offered: [NamedGroup])
    /// An Ed25519 or Ed448 leaf (its signature scheme).
    case edwardsLeafKey(SignatureScheme)
    /// An RSA-PSS leaf key (rsa_pss_pss_*).
    case rsaPSSLeafKey(SignatureScheme)
    /// A P-521 leaf on TLS 1.3, which needs ecdsa_secp521r1_sha512.
    case p521LeafOnTLS13
    /// The key exchange signed with ecdsa_sha1, no longer offered after 15.x.
    case ecdsaSHA1
    /// Another TLS 1.3 signature scheme the offer lacks.
    case schemeNotOffered(SignatureScheme)
    /// Nothing completed and the offer holds a group OpenSSL cannot send: atsprobe cannot tell.
    case unsendableGroup(NamedGroup)

    public var description: String {
        switch self {
        case .groupNotOffered(let group, let offered):
            "the server's key exchange uses \(group), a group Apple's client does not offer (it offers \(offered.map(\.name).joined(separator: ", ")))"
        case .edwardsLeafKey(let scheme):
            "the leaf key is \(scheme == .ed25519 ? "Ed25519" : "Ed448"); Apple's client offers no \(scheme) signature algorithm"
        case .rsaPSSLeafKey(let scheme):
            "the leaf key is an RSA-PSS key (\(scheme)); Apple's client offers no rsa_pss_pss signature algorithm"
        case .p521LeafOnTLS13:
            "the leaf is ECDSA P-521: on TLS 1.3 it needs ecdsa_secp521r1_sha512, which Apple's client does not offer"
        case .ecdsaSHA1:
            "the server signs its key exchange with ecdsa_sha1, which Apple's client no longer offers (releases after 15.x)"
        case .schemeNotOffered(let scheme):
            "the server signs with \(scheme), which Apple's client does not offer"
        case .unsendableGroup(let group):
            "if the server accepts only \(group) (post-quantum hybrid), atsprobe cannot judge it: OpenSSL 3.0 cannot offer that group"
        }
    }
}

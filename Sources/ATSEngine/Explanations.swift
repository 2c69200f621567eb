import ATSPolicy
import TLSFacts

/// Adds to a handshake failure what the other handshakes showed, so a reason reads
/// "server's highest protocol is TLS 1.1" rather than only "protocol_version alert".
enum Explanations {
    /// True when `annotate` cannot change the outcome whatever other handshakes show: it passed,
    /// or it failed for a reason other than no shared protocol or suite.
    static func isSettled(_ outcome: TestOutcome) -> Bool {
        guard !outcome.verdict.passed, let hop = outcome.hops.first(where: { !$0.verdict.passed }),
              case .failure(let failure)? = hop.result, hop.offer != nil else { return true }
        return failure.kind != .noSharedProtocol && failure.kind != .noSharedCipher
    }

    static func annotate(_ outcome: TestOutcome, with results: [ProbeResult]) -> TestOutcome {
        guard !outcome.verdict.passed, let hop = outcome.hops.first(where: { !$0.verdict.passed }),
              case .failure(let failure)? = hop.result, let offer = hop.offer else { return outcome }
        let seen = results.compactMap { try? $0.get() }
        let clause: String?
        switch failure.kind {
        case .noSharedProtocol:
            clause = seen.map(\.protocolVersion).max().map { best in
                best < offer.minVersion
                    ? "the server's highest protocol is \(best)"
                    : "the server completes \(best) handshakes with other offers"
            }
        case .noSharedCipher:
            let chosen = Set(seen.filter { $0.protocolVersion >= offer.minVersion }.map(\.cipherSuite)).filter { !offer.suites.contains($0) }
            clause = chosen.isEmpty ? nil
                : "the server chooses \(chosen.sorted().map(\.ianaName).joined(separator: " or ")), which this offer does not include"
        default:
            clause = nil
        }
        // A refusal that the suites and protocols do not explain: what the server picked with
        // the widest offer shows which part of Apple's ClientHello it could not use.
        let offerClause = [.noSharedCipher, .tlsAlert, .other].contains(failure.kind)
            ? offerMismatch(offer: offer, seen: seen) : nil
        guard let clause = offerClause ?? clause, var first = outcome.verdict.reasons.first else { return outcome }
        if let offerClause {
            // The alert says "no cipher suite in common" or the like; the cause is elsewhere in the hello.
            let alert = failure.alert.map { " (\($0.name) alert)" } ?? ""
            first.message = "server refused Apple's ClientHello\(alert): \(offerClause)"
        } else {
            first.message += "; \(clause)"
        }
        var copy = outcome
        copy.verdict.reasons[0] = first
        return copy
    }

    /// The first thing a completed handshake used that `offer` does not hold: the key exchange
    /// group, then the server's signature scheme. When nothing completed and the offer holds a
    /// group OpenSSL cannot send, says atsprobe cannot tell.
    static func offerMismatch(offer: ClientOffer, seen: [Observation]) -> String? {
        let offered = offer.groups.map(\.name).joined(separator: ", ")
        for o in seen {
            if let name = o.keyExchangeGroup, let group = NamedGroup(name: name), !offer.groups.contains(group) {
                return "the server's key exchange uses \(group), a group Apple's client does not offer (it offers \(offered))"
            }
            guard let scheme = o.serverSignatureScheme, !offer.signatureSchemes.contains(scheme) else { continue }
            switch scheme {
            case .ed25519, .ed448:
                return "the leaf key is \(scheme == .ed25519 ? "Ed25519" : "Ed448"); Apple's client offers no \(scheme) signature algorithm"
            case .rsaPSSPSSSHA256, .rsaPSSPSSSHA384, .rsaPSSPSSSHA512:
                return "the leaf key is an RSA-PSS key (\(scheme)); Apple's client offers no rsa_pss_pss signature algorithm"
            case .ecdsaSecp521r1SHA512 where o.protocolVersion >= .tls13:
                return "the leaf is ECDSA P-521: on TLS 1.3 it needs ecdsa_secp521r1_sha512, which Apple's client does not offer"
            case .ecdsaSHA1:
                return "the server signs its key exchange with ecdsa_sha1, which Apple's client no longer offers (releases after 15.x)"
            case _ where o.protocolVersion >= .tls13:
                return "the server signs with \(scheme), which Apple's client does not offer"
            default:
                // TLS 1.2 schemes name no curve: the server could have signed with one Apple offers.
                continue
            }
        }
        if seen.isEmpty, let missing = offer.groups.first(where: { $0 == .x25519MLKEM768 }) {
            return "if the server accepts only \(missing) (post-quantum hybrid), atsprobe cannot judge it: OpenSSL 3.0 cannot offer that group"
        }
        return nil
    }
}

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
        var context: ReasonContext?
        switch failure.kind {
        case .noSharedProtocol:
            context = seen.map(\.protocolVersion).max().map { best in
                best < offer.minVersion ? .serverHighestProtocol(best) : .serverCompletesElsewhere(best)
            }
        case .noSharedCipher:
            let chosen = Set(seen.filter { $0.protocolVersion >= offer.minVersion }.map(\.cipherSuite)).filter { !offer.suites.contains($0) }
            context = chosen.isEmpty ? nil : .serverChoosesOutsideOffer(chosen.sorted())
        default:
            context = nil
        }
        // A refusal that the suites and protocols do not explain: what the server picked with
        // the widest offer shows which part of Apple's ClientHello it could not use. The alert
        // says "no cipher suite in common" or the like; the cause is elsewhere in the hello.
        if [.noSharedCipher, .tlsAlert, .other].contains(failure.kind), let mismatch = offerMismatch(offer: offer, seen: seen) {
            context = .clientHelloRefused(alert: failure.alert, mismatch)
        }
        guard let context, !outcome.verdict.reasons.isEmpty else { return outcome }
        var copy = outcome
        copy.verdict.reasons[0].context = context
        return copy
    }

    /// The first thing a completed handshake used that `offer` does not hold: the key exchange
    /// group, then the server's signature scheme. When nothing completed and the offer holds a
    /// group OpenSSL cannot send, says atsprobe cannot tell.
    static func offerMismatch(offer: ClientOffer, seen: [Observation]) -> OfferMismatch? {
        for o in seen {
            if let name = o.keyExchangeGroup, let group = NamedGroup(name: name), !offer.groups.contains(group) {
                return .groupNotOffered(group, offered: offer.groups)
            }
            guard let scheme = o.serverSignatureScheme, !offer.signatureSchemes.contains(scheme) else { continue }
            switch scheme {
            case .ed25519, .ed448:
                return .edwardsLeafKey(scheme)
            case .rsaPSSPSSSHA256, .rsaPSSPSSSHA384, .rsaPSSPSSSHA512:
                return .rsaPSSLeafKey(scheme)
            case .ecdsaSecp521r1SHA512 where o.protocolVersion >= .tls13:
                return .p521LeafOnTLS13
            case .ecdsaSHA1:
                return .ecdsaSHA1
            case _ where o.protocolVersion >= .tls13:
                return .schemeNotOffered(scheme)
            default:
                // TLS 1.2 schemes name no curve: the server could have signed with one Apple offers.
                continue
            }
        }
        if seen.isEmpty, let missing = offer.groups.first(where: { $0 == .x25519MLKEM768 }) {
            return .unsendableGroup(missing)
        }
        return nil
    }
}

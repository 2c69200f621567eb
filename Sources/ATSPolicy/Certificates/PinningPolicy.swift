import PropertyList
import TLSFacts

/// NSPinnedDomains judged against the served chain (ats-reference section 3): CA pins need one
/// CA certificate of the served chain (index >= 1) to match, leaf pins need the leaf to match,
/// and with both present both must match. Apple matches against the chain it built, which can
/// include a root from its store that the server did not send; atsprobe sees only what was served.
package enum PinningPolicy {
    package static func evaluate(chain: [CertificateFacts], pins: PinSet) -> PinResult {
        // An empty set is a key present with no usable identity: it matches nothing (SecPolicyServer.c).
        let caPins = pins.caIdentities.map(Set.init)
        let leafPins = pins.leafIdentities.map(Set.init)
        guard caPins != nil || leafPins != nil else {
            return PinResult(verdict: .noPins, caPinMatched: nil, leafPinMatched: nil, matchedCAIndices: [],
                             reason: "the entry pins no identity")
        }
        let matchedCAs = caPins.map { pinned in chain.indices.dropFirst().filter { pinned.contains(chain[$0].spkiSHA256Base64) } } ?? []
        let caMatched = caPins.map { _ in !matchedCAs.isEmpty }
        let leafMatched = leafPins.map { pinned in chain.first.map { pinned.contains($0.spkiSHA256Base64) } ?? false }

        var failures: [String] = []
        if caPins?.isEmpty == true {
            failures.append("NSPinnedCAIdentities holds no readable identity, so no CA certificate can match it")
        } else if caMatched == false {
            failures.append("no CA certificate in the served chain matches NSPinnedCAIdentities")
        }
        if leafPins?.isEmpty == true {
            failures.append("NSPinnedLeafIdentities holds no readable identity, so no leaf can match it")
        } else if leafMatched == false {
            failures.append("the leaf does not match NSPinnedLeafIdentities")
        }
        if failures.isEmpty {
            var parts: [String] = []
            if caMatched == true { parts.append("CA certificate \(matchedCAs.map(String.init).joined(separator: ", ")) matches a CA pin") }
            if leafMatched == true { parts.append("the leaf matches a leaf pin") }
            return PinResult(verdict: .matched, caPinMatched: caMatched, leafPinMatched: leafMatched,
                             matchedCAIndices: matchedCAs, reason: parts.joined(separator: "; "))
        }
        return PinResult(verdict: .mismatched, caPinMatched: caMatched, leafPinMatched: leafMatched,
                         matchedCAIndices: matchedCAs, reason: failures.joined(separator: "; "))
    }

    /// A ready-to-paste NSPinnedDomains dictionary pinning what was served: every CA certificate
    /// (index >= 1) under NSPinnedCAIdentities and the leaf under NSPinnedLeafIdentities.
    /// Pinning both means both must match: drop one of the two keys to pin only CAs or only the leaf.
    package static func suggestedPinnedDomains(host: String, chain: [CertificateFacts]) -> [String: PropertyListValue] {
        func identities(_ certificates: some Sequence<CertificateFacts>) -> [PropertyListValue] {
            var seen = Set<String>()
            return certificates.compactMap { certificate in
                guard seen.insert(certificate.spkiSHA256Base64).inserted else { return nil }
                return ["SPKI-SHA256-BASE64": .string(certificate.spkiSHA256Base64)]
            }
        }
        var entry: [String: PropertyListValue] = ["NSIncludesSubdomains": false]
        let cas = identities(chain.dropFirst())
        if !cas.isEmpty { entry["NSPinnedCAIdentities"] = .array(cas) }
        if let leaf = chain.first { entry["NSPinnedLeafIdentities"] = .array(identities([leaf])) }
        return ["NSPinnedDomains": [DomainKeys.key(for: host, in: .pinnedDomains): .dictionary(entry)]]
    }
}

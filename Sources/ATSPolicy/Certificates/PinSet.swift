/// One NSPinnedDomains entry (iOS 14 / macOS 11): SPKI-SHA256-BASE64 identities for the CAs
/// and/or the leaf. nil is an absent key; an empty array is a present key with no usable
/// identity, which pins the domain to nothing: no certificate matches it and every load fails
/// (SecPolicy.c `parseNSPinnedDomains` returns an empty, non-NULL array; SecPolicyServer.c
/// `SecPolicyCheckLeafSPKISHA256`/`SecPolicyCheckCAspkiSHA256` then find no match).
public struct PinSet: Hashable, Sendable {
    public var includesSubdomains: Bool
    /// NSPinnedCAIdentities: base64 SHA-256 of a CA certificate's DER SubjectPublicKeyInfo.
    public var caIdentities: [String]?
    /// NSPinnedLeafIdentities: the same, for the leaf.
    public var leafIdentities: [String]?

    public init(includesSubdomains: Bool = false, caIdentities: [String]? = nil, leafIdentities: [String]? = nil) {
        self.includesSubdomains = includesSubdomains
        self.caIdentities = caIdentities
        self.leafIdentities = leafIdentities
    }

    /// False when a present identity key holds no identity: then no chain can ever satisfy the entry.
    public var canEverMatch: Bool {
        caIdentities?.isEmpty != true && leafIdentities?.isEmpty != true
    }
}

/// The pinning judgement for one served chain.
public struct PinResult: Hashable, Sendable, Codable {
    public enum Verdict: String, Hashable, Sendable, Codable {
        /// The entry pins nothing: pinning does not restrict the connection.
        case noPins
        case matched
        case mismatched
    }
    public var verdict: Verdict
    /// nil when the entry has no CA pins; otherwise whether a served CA matched.
    public var caPinMatched: Bool?
    /// nil when the entry has no leaf pins; otherwise whether the leaf matched.
    public var leafPinMatched: Bool?
    /// Chain indices (>= 1) of the CA certificates whose SPKI matched a CA pin.
    public var matchedCAIndices: [Int]
    /// One line for people.
    public var reason: String

    public var isSatisfied: Bool { verdict != .mismatched }
}

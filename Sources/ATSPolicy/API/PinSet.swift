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

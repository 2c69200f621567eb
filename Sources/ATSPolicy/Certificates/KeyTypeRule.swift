import TLSFacts

/// Keys Apple cannot use. SecKey.m (SecKeyCreatePublicFromDERItem) parses rsaEncryption, EC,
/// Ed25519 and Ed448 SubjectPublicKeyInfos only: an RSASSA-PSS SPKI, DSA or anything else in
/// any certificate of the chain fails. A leaf must also sign the handshake with a scheme
/// Apple offers: its ClientHellos (shared/data/apple/client-hellos.md) offer ECDSA and RSA
/// (PKCS#1, PSS-RSAE) only, so an Ed25519 or Ed448 leaf cannot be used either.
package struct KeyTypeRule: CertificateRule {
    package static let ids: [CertificateRuleID] = [.keyTypeUnsupported]

    package init() {}

    package func violations(_ context: CertificateRuleContext) -> [CertificateRuleViolation] {
        // The chain as built, anchor included (a DSA root fails: x509-limbo webpki::forbidden-dsa-root).
        context.builtPath.indices.compactMap { index in
            let key = context.builtPath[index].publicKey
            switch key.algorithm {
            case .rsa, .ec: return nil
            case .ed25519, .ed448:
                guard index == 0 else { return nil }
                return context.violation(CertificateRuleID.keyTypeUnsupported, index,
                                         "\(key.algorithm.rawValue) leaf key; Apple offers no \(key.algorithm.rawValue) signature scheme in TLS", inPath: true)
            case .rsaPSS, .dsa, .other:
                return context.violation(CertificateRuleID.keyTypeUnsupported, index,
                                         "\(key.algorithm.rawValue) public key, which Apple cannot parse (it reads RSA, EC, Ed25519 and Ed448 keys)", inPath: true)
            }
        }
    }
}

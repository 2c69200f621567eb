import TLSFacts

/// Apple's SSL server policy asks for EC keys of 256 bits or more in every certificate of the
/// path (SecPolicy.c SecPolicyCreateSSL_internal -> SecPolicyAddStrongKeySizeOptions: EC 256;
/// SecPolicyServer.c SecPolicyCheckKeySize loops over the whole path, the anchor included, and
/// skips a user-anchored leaf). A P-192 or P-224 key fails under every ATS dictionary: no
/// exception relaxes it (x509-limbo webpki::forbidden-p192-leaf, webpki::forbidden-p192-root).
package struct ECKeySizeRule: CertificateRule {
    package static let ids: [CertificateRuleID] = [.ecKeySize]
    package static let minimumBits = 256

    package init() {}

    package func violations(_ context: CertificateRuleContext) -> [CertificateRuleViolation] {
        guard !context.leafIsUserAnchor else { return [] }
        return context.builtPath.indices.compactMap { index in
            let key = context.builtPath[index].publicKey
            guard key.algorithm == .ec, key.bits < Self.minimumBits else { return nil }
            return context.violation(CertificateRuleID.ecKeySize, index,
                                     "EC key of \(key.bits) bits; Apple requires \(Self.minimumBits) or more", inPath: true)
        }
    }
}

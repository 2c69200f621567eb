import TLSFacts

/// HT210176: RSA keys of the server certificate and of issuing CAs must be 2048 bits or more,
/// compared as Apple's code compares them: in bytes (SecCertificate.c
/// SecCertificateIsAtLeastMinKeySize), so 2041 to 2047 bits pass and 2040 (255 bytes) fails;
/// `KeySizeCounting.bits` compares bits instead. Every certificate of the chain as built is
/// checked (SecPolicyServer.c SecPolicyCheckKeySize loops over the whole path), the anchor
/// included whether served or not: a user's or an app's 1024-bit root fails (x509-limbo
/// webpki::forbidden-weak-rsa-key-in-root); before the chain reaches an anchor, the served ones. A modulus above 8192 bits is one Apple cannot parse
/// (SecRSAKey.c kMaximumRSAKeyBits), so the certificate fails as well.
package struct RSAKeySizeRule: CertificateRule {
    package static let ids: [CertificateRuleID] = [.rsaKeySize, .rsaKeyTooLarge]

    package init() {}

    package func violations(_ context: CertificateRuleContext) -> [CertificateRuleViolation] {
        let minimum = context.rules.minimumRSABits
        let maximum = context.rules.maximumRSABits
        return context.builtPath.indices.compactMap { index in
            let key = context.builtPath[index].publicKey
            guard key.algorithm == .rsa else { return nil }
            if key.bits > maximum {
                return context.violation(CertificateRuleID.rsaKeyTooLarge, index,
                                         "RSA key of \(key.bits) bits; Apple parses RSA keys up to \(maximum) bits", inPath: true)
            }
            // A user-anchored leaf skips the key-size check (SecPolicyServer.c SecPolicyCheckKeySize).
            guard !context.leafIsUserAnchor, !context.rules.keySizeCounting.meets(bits: key.bits, minimum: minimum) else { return nil }
            let counted = context.rules.keySizeCounting == .bytes
                ? " (\((key.bits + 7) / 8) bytes; Apple compares whole bytes, \((minimum + 7) / 8) needed)" : ""
            return context.violation(CertificateRuleID.rsaKeySize, index,
                                     "RSA key of \(key.bits) bits\(counted); Apple requires \(minimum) or more", inPath: true)
        }
    }
}

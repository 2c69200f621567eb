import TLSFacts

/// HT210176: RSA keys of the server certificate and of issuing CAs must be 2048 bits or more.
/// Every served certificate is checked, the root included (it issues too).
public enum RSAKeySizeRule {
    public static func violations(_ context: CertificateRuleContext) -> [CertificateRuleViolation] {
        let minimum = context.rules.minimumRSABits
        return context.chain.indices.compactMap { index in
            let key = context.chain[index].publicKey
            guard key.algorithm == .rsa, key.bits < minimum else { return nil }
            return context.violation(CertificateRuleID.rsaKeySize, index,
                                     "RSA key of \(key.bits) bits; Apple requires \(minimum) or more")
        }
    }
}

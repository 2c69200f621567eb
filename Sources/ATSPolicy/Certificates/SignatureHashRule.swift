import TextSupport
import TLSFacts

/// HT210176: SHA-1 signatures are not trusted (MD5 even less). The root's self-signature is
/// never verified (the root is trusted as itself), so a self-issued last certificate is exempt,
/// and so is a self-signed leaf that is itself the anchor (SecPolicyLeafCallbacks.c skips the
/// weak-hash check for a self-signed leaf trusted as an anchor); a user-trusted anchor is not
/// checked either, self-signed or not (SecPolicyCheckSignatureHashAlgorithms).
package struct SignatureHashRule: CertificateRule {
    package static let ids: [CertificateRuleID] = [.sha1Signature, .md5Signature]

    package init() {}

    package func violations(_ context: CertificateRuleContext) -> [CertificateRuleViolation] {
        context.chain.indices.compactMap { index in
            let certificate = context.chain[index]
            guard !context.isSelfIssuedRoot(index), !context.isSelfSignedAnchorLeaf(index),
                  certificate.sha256Fingerprint != context.userAnchorFingerprint else { return nil }
            let rule: CertificateRuleID
            switch certificate.signatureHash {
            case .sha1: rule = CertificateRuleID.sha1Signature
            case .md5: rule = CertificateRuleID.md5Signature
            default: return nil
            }
            return context.violation(rule, index,
                "signed with \(UntrustedText.escape(certificate.signatureAlgorithm, limit: 80)); Apple does not trust \(certificate.signatureHash == .md5 ? "MD5" : "SHA-1") signatures")
        }
    }
}

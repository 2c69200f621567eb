import TextSupport
import TLSFacts

/// ATS extended requirement (2B): the leaf is signed with SHA-256 or stronger.
package struct LeafSignatureHashCheck: LoadCheck {
    package let id: LoadCheckID = "leaf-signature-hash"
    package init() {}

    package func failures(_ context: LoadCheckContext) -> [FailureReason] {
        guard context.policy.checksLeafSignatureHash, let leaf = context.observation.leaf,
              !leaf.signatureHash.isSHA256OrStronger else { return [] }
        let algorithm = UntrustedText.escape(leaf.signatureAlgorithm, limit: 80)
        return [FailureReason(.leafSignatureHashWeak, layer: .ats,
                              "leaf signed with \(leaf.signatureHash.rawValue.uppercased()) (\(algorithm)); ATS requires SHA-256 or stronger")]
    }
}

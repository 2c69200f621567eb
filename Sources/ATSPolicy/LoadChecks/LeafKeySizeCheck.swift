import TLSFacts

/// ATS extended requirement (2B): the leaf key is at least the rule set's minimum for its
/// algorithm (`RuleSet.leafMinimumKeyBits`, RSA 2048 and EC 256), compared in whole bytes as
/// Apple's code does (SecCertificateIsAtLeastMinKeySize). Dropped where the policy says so.
package struct LeafKeySizeCheck: LoadCheck {
    package let id: LoadCheckID = "leaf-key-size"
    package init() {}

    package func failures(_ context: LoadCheckContext) -> [FailureReason] {
        guard context.policy.checksLeafKeySize, let leaf = context.observation.leaf,
              let needed = context.ruleSet.leafKeyShortfall(leaf.publicKey) else { return [] }
        return [FailureReason(.leafKeyTooSmall, layer: .ats,
                              "leaf \(leaf.publicKey.algorithm.rawValue) key \(leaf.publicKey.bits) bits < \(needed)")]
    }
}

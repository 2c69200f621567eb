import ATSPolicy
import TextSupport
import TLSFacts

extension ChainJudgement {
    /// The judgement with the app's pins applied (NSPinnedDomains' identities, or Apple's
    /// kSecPolicyCheckLeafSPKISHA256 / kSecPolicyCheckCAspkiSHA256 options, which the same
    /// entries set: SecPolicy.c SecPolicyAddATSpinningIfInfoSpecified). Judged by
    /// `PinningPolicy.evaluate` (what `atsprobe pins --plist` runs) over the chain as built,
    /// leaf first and anchor last, as SecPolicyServer.c SecPolicyCheckCAspkiSHA256 reads it:
    /// a CA pin may match any certificate above the leaf, the anchor included.
    public func applying(pins: PinSet) -> ChainJudgement {
        let result = PinningPolicy.evaluate(chain: chain, pins: pins)
        guard result.verdict == .mismatched else { return self }
        var judged = self
        judged.failures.append(Failure(rule: "pins", certificateIndex: nil,
                                       reason: UntrustedText.escape(result.reason, limit: 600),
                                       source: "SecPolicyServer.c SecPolicyCheckLeafSPKISHA256, SecPolicyCheckCAspkiSHA256 (NSPinnedDomains: SecPolicy.c parseNSPinnedDomains)",
                                       fix: "serve a chain whose leaf or CA keys match the pinned SPKI-SHA256-BASE64 identities, or update the pins"))
        return judged
    }
}

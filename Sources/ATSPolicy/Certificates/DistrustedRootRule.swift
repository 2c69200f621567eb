#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport
import TLSFacts

/// The chain's anchor is one Apple distrusts by date, and the leaf was issued too late; or a
/// WoSign/StartCom root has a child issued on or after 2016-12-01. Judged on the chain as
/// built (the anchor is usually not served). Applies to system-anchored chains only: a root
/// the user installed is trusted as the user says.
package struct DistrustedRootRule: CertificateRule {
    package static let ids: [CertificateRuleID] = [.distrustedRoot]

    package init() {}

    package func violations(_ context: CertificateRuleContext) -> [CertificateRuleViolation] {
        guard context.anchor == .system, let (issued, fromSCT) = context.issuance else { return [] }
        let path = context.builtPath
        var found: [CertificateRuleViolation] = []
        for (index, certificate) in path.enumerated() {
            let fingerprint = AppleDistrustList.normalized(certificate.sha256Fingerprint)
            if let root = context.distrust.roots.first(where: { $0.sha256 == fingerprint }), issued >= root.distrustedFrom {
                let when = fromSCT ? "issued (earliest SCT) \(isoText(issued))" : "issued (notBefore; no SCT) \(isoText(issued))"
                found.append(context.violation(CertificateRuleID.distrustedRoot, index,
                    "\(root.authority) root '\(root.name)' is distrusted by Apple for TLS certificates issued on or after \(isoText(root.distrustedFrom)); this leaf was \(when) (\(root.source))",
                    inPath: true))
            }
            if let name = context.distrust.notBeforeConstrained[fingerprint],
               let child = path[..<index].first(where: { $0.notBefore >= context.distrust.notBeforeLimit }) {
                found.append(context.violation(CertificateRuleID.distrustedRoot, index,
                    "\(name): Apple refuses certificates below WoSign/StartCom roots with notBefore on or after \(dayString(context.distrust.notBeforeLimit)); '\(UntrustedText.escape(child.subject, limit: 120))' has \(isoText(child.notBefore)) (SecPolicyServer.c)",
                    inPath: true))
            }
        }
        return found
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport
import TLSFacts

/// What every certificate rule looks at: the served chain, the anchor that verified it, the
/// rule set, and the injected time of judgement.
public struct CertificateRuleContext: Sendable {
    /// As served, leaf first.
    public var chain: [CertificateFacts]
    /// .system = public root, .user = user-installed root, nil = not verified.
    public var anchor: AnchorSource?
    public var date: Date
    public var rules: CertificateRuleSet
    /// The chain as built (leaf first, anchor last), when it reached an anchor: fetched
    /// intermediates and an unsent root included. Nil: only the served chain is known.
    public var path: [CertificateFacts]?
    /// SCTs from the TLS extension and the OCSP staple (the embedded ones are on the leaf).
    public var deliveredSCTs: [SignedCertificateTimestamp]
    public var ocspStaple: OCSPStaple?
    /// Apple's date-based distrust of roots (article 121668, WoSign/StartCom).
    public var distrust: AppleDistrustList
    /// The name asked for (SNI), for messages only: matching it is the probe's job.
    public var serverName: String?
    /// The CT logs Apple trusts (as built in, by default).
    public var logs: CTLogList
    /// The app or the anchor asks for CT whatever the issuance date.
    public var requireCertificateTransparency: Bool
    /// The policy of Apple's system pinning list that names the host, if one does
    /// (`TrustEvaluation.pinningPolicy`): no system-root CT requirement then.
    public var pinningPolicy: String?

    public init(chain: [CertificateFacts], anchor: AnchorSource?, date: Date, rules: CertificateRuleSet,
                path: [CertificateFacts]? = nil, deliveredSCTs: [SignedCertificateTimestamp] = [],
                ocspStaple: OCSPStaple? = nil, distrust: AppleDistrustList = .apple, serverName: String? = nil,
                logs: CTLogList = .apple, requireCertificateTransparency: Bool = false, pinningPolicy: String? = nil) {
        self.chain = chain
        self.anchor = anchor
        self.date = date
        self.rules = rules
        self.path = path
        self.deliveredSCTs = deliveredSCTs
        self.ocspStaple = ocspStaple
        self.distrust = distrust
        self.serverName = serverName
        self.logs = logs
        self.requireCertificateTransparency = requireCertificateTransparency
        self.pinningPolicy = pinningPolicy
    }

    public var leaf: CertificateFacts? { chain.first }

    /// The chain as built when known, else as served.
    public var builtPath: [CertificateFacts] { path ?? chain }

    /// A self-signed leaf served alone and trusted as the anchor itself.
    public func isSelfSignedAnchorLeaf(_ index: Int) -> Bool {
        index == 0 && chain.count == 1 && chain[0].isSelfIssued && anchor != nil
    }

    /// The leaf is itself a user-trusted anchor (a leaf the user installed and trusted: a
    /// self-signed one, or any leaf, which trust settings make an anchor "as root",
    /// SecPVCIsAnchorPerConstraints): Apple skips the key-size and lifetime-maximum checks for
    /// it (SecPolicyServer.c SecPolicyCheckKeySize, SecPolicyCheckValidityPeriodMaximums,
    /// SecPolicyCheckOtherTrustValidityPeriod: "Don't check ... for user-anchored leafs",
    /// SecPVCIsAnchorPerConstraints(kSecUserAnchorSource, leaf)).
    public var leafIsUserAnchor: Bool { anchor == .user && (isSelfSignedAnchorLeaf(0) || path?.count == 1) }

    /// The SHA-256 fingerprint of the anchor that ended the path when the user trusts it:
    /// Apple does not check its signature hash, self-signed or not (SecPolicyServer.c
    /// SecPolicyCheckSignatureHashAlgorithms: "Ignore (a non-self-signed) anchor if it's trusted by the user").
    public var userAnchorFingerprint: String? { anchor == .user ? path?.last?.sha256Fingerprint : nil }

    /// When Apple takes the leaf to have been issued: the earliest SCT (embedded or delivered)
    /// whose signature was not found bad, else the leaf's notBefore (SecPolicyServer.c,
    /// SecPVCCheckRequireCTConstraints: SecCertificatePathVCIssuanceTime, else notBefore).
    public var issuanceTime: Date? { issuance?.date }

    /// The issuance time and whether an SCT gave it.
    public var issuance: (date: Date, fromSCT: Bool)? {
        guard let leaf else { return nil }
        let counted = (leaf.embeddedSCTs + deliveredSCTs).filter { $0.signature == .valid || $0.signature == .notChecked }
        if let earliest = counted.map(\.timestamp).min() { return (earliest, true) }
        return (leaf.notBefore, false)
    }

    /// Whether `index` is the root's place: the last certificate, self-issued, not the leaf.
    public func isSelfIssuedRoot(_ index: Int) -> Bool {
        index > 0 && index == chain.count - 1 && chain[index].isSelfIssued
    }

    /// "certificate 1 (CN=R3, O=Let's Encrypt)", the subject escaped: it is network text.
    public func name(_ index: Int) -> String {
        let role = index == 0 ? "leaf" : (isSelfIssuedRoot(index) ? "root" : "CA")
        return "certificate \(index) [\(role)] (\(UntrustedText.escape(chain[index].subject, limit: 200)))"
    }

    func violation(_ rule: CertificateRuleID, _ index: Int, _ what: String) -> CertificateRuleViolation {
        CertificateRuleViolation(rule: rule, certificateIndex: index, detail: "\(name(index)): \(what) [\(rule)]")
    }

    /// A violation by a certificate of the chain as built. It keeps the served index when the
    /// server sent that certificate; otherwise (fetched, or the store's root) the index is nil.
    func violation(_ rule: CertificateRuleID, _ pathIndex: Int, _ what: String, inPath: Bool) -> CertificateRuleViolation {
        let certificate = builtPath[pathIndex]
        if let served = chain.firstIndex(where: { $0.sha256Fingerprint == certificate.sha256Fingerprint }) {
            return violation(rule, served, what)
        }
        let role = pathIndex == builtPath.count - 1 ? "root" : "CA, not served"
        return CertificateRuleViolation(rule: rule, certificateIndex: nil,
            detail: "chain certificate \(pathIndex) [\(role)] (\(UntrustedText.escape(certificate.subject, limit: 200))): \(what) [\(rule)]")
    }
}

/// "2020-09-01": the day of a rule date, for messages.
func dayString(_ date: Date) -> String {
    CivilCalendar.day(days: Int((date.timeIntervalSince1970 / 86_400).rounded(.down)))
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ATSPolicy
import TextSupport
import TLSFacts

/// A chain judged as an Apple device judges an SSL server's chain for a name: the trust
/// evaluation (path, anchor, name, dates) and Apple's certificate rules (ATSPolicy's
/// `AppleCertificatePolicy`, the same rules the loads apply), as one list of failures, each
/// with the Apple source it follows and the fix. Pure values: usable without a socket.
public struct ChainJudgement: Sendable, Encodable {
    /// True when an Apple device would trust the chain for the name (no failure).
    public var trusted: Bool { failures.isEmpty }
    public var failures: [Failure]
    /// The chain as built, leaf first and anchor last, when it reached an anchor; else the chain as given.
    public var chain: [CertificateFacts]
    /// The anchor that ended the chain, when one did.
    public var anchor: CertificateFacts?
    /// Which kind of anchor it is, when one did.
    public var anchorKind: AnchorKind?

    /// The anchor kinds Apple's trustd tells apart and judges differently (docs/trust.md,
    /// "Anchor kinds").
    public enum AnchorKind: String, Sendable, Encodable {
        /// A root of the system store (kSecSystemAnchorSource): 398 days and CT apply.
        case systemRoot = "system-root"
        /// A root the user installed and trusted (kSecUserAnchorSource; --ca-file, --ca-dir):
        /// 825 days still apply, 398 days and CT do not.
        case userTrustedRoot = "user-trusted-root"
        /// A leaf that is its own user-trusted anchor (self-signed, or any leaf given with
        /// --ca-file): exempt from the lifetime, key-size and SHA-1 rules and the strict EKU.
        case userTrustedLeaf = "user-trusted-leaf"
        /// An anchor the app set itself (SecTrustSetAnchorCertificates; `cert --app-anchor`)
        /// that is not a system root: Apple's "all other trust". 825 days, key sizes, SHA-1 and
        /// the strict serverAuth EKU from 2019-07-01 apply, also to a self-signed leaf set as
        /// its own anchor; 398 days and CT do not.
        case appAnchor = "app-anchor"
    }
    public var evaluatedAt: Date
    /// caIssuers fetches made while building the path, in order.
    public var fetchedIssuers: [FetchedIssuer]?

    public struct Failure: Sendable, Encodable, Hashable {
        /// A certificate rule id ("validity-398") or a trust problem ("trust.name-mismatch").
        public var rule: String
        /// Index in the chain as given (0 = leaf), when one certificate is at fault.
        public var certificateIndex: Int?
        /// One line (untrusted text escaped).
        public var reason: String
        /// The Apple code, document or test the judgement follows.
        public var source: String
        /// What to reissue, or change, so that it passes.
        public var fix: String
    }

    enum CodingKeys: String, CodingKey { case trusted, failures, chain, anchor, anchorKind, evaluatedAt, fetchedIssuers }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(trusted, forKey: .trusted)
        try container.encode(failures, forKey: .failures)
        try container.encode(chain, forKey: .chain)
        try container.encodeIfPresent(anchor, forKey: .anchor)
        try container.encodeIfPresent(anchorKind, forKey: .anchorKind)
        try container.encode(evaluatedAt, forKey: .evaluatedAt)
        try container.encodeIfPresent(fetchedIssuers, forKey: .fetchedIssuers)
    }

    /// `given` is the chain as read (its facts, SCT signatures judged), `trust` its evaluation.
    package init(given: [CertificateFacts], trust: TrustEvaluation, name: String, rules: CertificateRuleSet,
                logs: CTLogList, distrust: AppleDistrustList = .apple) {
        evaluatedAt = trust.evaluatedAt
        chain = trust.path ?? given
        anchor = trust.anchorCertificate
        switch trust.anchor {
        case .system?: anchorKind = .systemRoot
        // The leaf is the anchor when the path as built is the leaf alone (a user-trusted leaf
        // need not be self-signed: trust settings make any certificate an anchor "as root").
        case .user?: anchorKind = trust.path?.count == 1 || (given.count == 1 && given[0].isSelfIssued) ? .userTrustedLeaf : .userTrustedRoot
        case .app?: anchorKind = .appAnchor
        case nil: anchorKind = nil
        }
        fetchedIssuers = trust.fetchedIssuers
        var failures: [Failure] = trust.problems.map { problem in
            let (source, fix) = ChainJudgement.explanation(problem.kind, name: name)
            return Failure(rule: "trust." + ChainJudgement.kebab(problem.kind.rawValue), certificateIndex: problem.certificateIndex,
                           reason: UntrustedText.escape(problem.detail, limit: 600), source: source, fix: fix)
        }
        let violations = AppleCertificatePolicy.violations(chain: given, anchor: trust.anchor, serverName: name,
                                                           at: trust.evaluatedAt, rules: rules, logs: logs,
                                                           path: trust.path, distrust: distrust, pinningPolicy: trust.pinningPolicy)
        failures += violations.map { violation in
            let (source, fix) = ChainJudgement.explanation(violation.rule)
            return Failure(rule: violation.rule.rawValue, certificateIndex: violation.certificateIndex,
                           reason: UntrustedText.escape(violation.detail, limit: 600), source: source, fix: fix)
        }
        self.failures = failures
    }

    static func kebab(_ camel: String) -> String {
        camel.reduce(into: "") { out, ch in
            if ch.isUppercase { out += "-" + ch.lowercased() } else { out.append(ch) }
        }
    }

    /// The Apple source and the fix for a trust problem.
    static func explanation(_ kind: TrustProblem.Kind, name: String) -> (source: String, fix: String) {
        switch kind {
        case .nameMismatch:
            ("SecPolicyServer.c SecPolicyCheckSSLHostname (subjectAltName only; SecCertificateCopyDNSNamesFromSAN)",
             "reissue the leaf with a subjectAltName entry for '\(UntrustedText.escape(name, limit: 200))' (an iPAddress entry for an IP address)")
        case .expired, .notYetValid:
            ("SecPolicyServer.c SecPolicyCheckTemporalValidity", "reissue the certificate with a validity period that covers the date judged at")
        case .untrustedRoot, .selfSigned:
            ("SecTrustServer.c path building (SecPathBuilder): the chain must end at an anchor (system, user-trusted or app-set)",
             "reissue from a CA in Apple's root store, or install the root as a trusted anchor (a user-installed root)")
        case .incompleteChain:
            ("SecTrustServer.c SecPathBuilder parent sources; SecCAIssuerRequest.m (caIssuers fetch)",
             "include the intermediate certificate(s) after the leaf, or name a reachable http caIssuers URL in the leaf")
        case .invalidChain:
            ("SecPolicyServer.c SecPathBuilder signature and basic-constraints checks", "reissue the chain: a certificate in it is not validly signed or not a CA")
        }
    }

    /// The Apple source and the fix for a certificate rule (docs/certificates.md has the table).
    static func explanation(_ rule: CertificateRuleID) -> (source: String, fix: String) {
        switch rule {
        case .subjectAltNameMissing:
            ("HT210176; SecPolicyServer.c SecPolicyCheckSSLHostname (the CommonName is never used)",
             "reissue the leaf with a subjectAltName (DNS or IP) entry for each name it serves")
        case .serverAuthEKU:
            ("SecPolicyServer.c SecPolicyCheckServerAuthEKU; SecPolicy.c set_ssl_ekus; HT210176",
             "reissue the leaf with extendedKeyUsage id-kp-serverAuth")
        case .caServerAuthEKU:
            ("SecPolicyServer.c SecPolicyCheckServerAuthEKU (sub-CA EKUs)", "reissue the intermediate with serverAuth (or no EKU) in its extendedKeyUsage")
        case .validity825:
            ("HT210176; SecPolicyServer.c SecPolicyCheckValidityPeriodMaximums", "reissue the leaf valid for at most 825 days")
        case .validity398:
            ("HT211025; SecPolicyServer.c SecPolicyCheckValidityPeriodMaximums", "reissue the leaf valid for at most 398 days")
        case .rsaKeySize:
            ("HT210176; SecCertificate.c SecCertificateIsAtLeastMinKeySize", "reissue with an RSA key of at least 2048 bits (or ECDSA P-256)")
        case .ecKeySize:
            ("SecPolicy.c SecPolicyAddStrongKeySizeOptions; SecPolicyServer.c SecPolicyCheckKeySize", "reissue with an ECDSA P-256 or P-384 key (or RSA 2048+)")
        case .rsaKeyTooLarge:
            ("SecRSAKey.c kMaximumRSAKeyBits", "reissue with an RSA key of at most 8192 bits")
        case .keyTypeUnsupported:
            ("SecKey.m SecKeyCreatePublicFromDERItem", "reissue with an RSA (2048+) or ECDSA (P-256/P-384) key")
        case .sha1Signature, .md5Signature:
            ("HT210176; SecPolicyServer.c SecPolicyCheckWeakSignature", "reissue the certificate signed with SHA-256 or stronger")
        case .certificateTransparency:
            ("SecPolicyServer.c SecPolicyCheckCTRequired, SecPVCCheckRequireCTConstraints; Apple's CT policy (support.apple.com/en-us/103214)",
             "reissue the leaf with embedded SCTs from enough Apple-qualified logs, or deliver them in the TLS extension or an OCSP staple")
        case .distrustedRoot:
            ("Apple support 121668; SecPolicyServer.c SecPVCCheckIssuerDateConstraints", "reissue from a CA whose root Apple still trusts")
        case .ocspRevoked:
            ("SecRevocationServer.c (stapled responses)", "replace the revoked certificate")
        default:
            ("docs/certificates.md", "reissue the certificate to meet the rule")
        }
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The chain check against the anchors, each problem reported on its own.
public struct TrustEvaluation: Hashable, Sendable, Codable {
    public var problems: [TrustProblem]
    /// Where the anchor that verified the chain came from, when one did.
    public var anchor: AnchorSource?
    /// The time the chain was judged at.
    public var evaluatedAt: Date
    /// The system anchors judged against, named with their version ("Apple's root store
    /// security_certificates-55349.0.11 (156 roots)"); nil when no system store was used.
    public var store: String?
    /// The chain as built, leaf first and anchor last, when it reached an anchor: it may hold
    /// intermediates fetched by caIssuers and a root the server did not send.
    public var path: [CertificateFacts]?
    /// Every caIssuers fetch made while building the chain, in order; nil when none was needed.
    public var fetchedIssuers: [FetchedIssuer]?
    /// When the other system store (Apple's or the machine's) judges the root differently.
    public var otherStore: StoreComparison?
    /// The policy of Apple's system pinning list that names the host ("APN", "IDS", ...), when
    /// one does: trustd judges the chain under that policy instead of the SSL server policy
    /// (docs/trust.md, "Apple's system pinning list"). Nil for other hosts.
    public var pinningPolicy: String?

    public var isTrusted: Bool { problems.isEmpty }

    /// The root that ended the chain, when one did.
    public var anchorCertificate: CertificateFacts? { anchor == nil ? nil : path?.last }

    public init(problems: [TrustProblem], anchor: AnchorSource?, evaluatedAt: Date, store: String? = nil,
                path: [CertificateFacts]? = nil, fetchedIssuers: [FetchedIssuer]? = nil, otherStore: StoreComparison? = nil,
                pinningPolicy: String? = nil) {
        self.problems = problems
        self.anchor = anchor
        self.evaluatedAt = evaluatedAt
        self.store = store
        self.path = path
        self.fetchedIssuers = fetchedIssuers
        self.otherStore = otherStore
        self.pinningPolicy = pinningPolicy
    }
}

/// One caIssuers (AIA) URL fetched for a certificate whose issuer was neither served nor an anchor.
public struct FetchedIssuer: Hashable, Sendable, Codable {
    /// The URL as the certificate names it (untrusted text).
    public var url: String
    /// The subject of the certificate whose issuer was wanted.
    public var forSubject: String
    /// The certificates the URL gave that issued it (DER or certs-only PKCS#7); empty on failure.
    public var certificates: [CertificateFacts]
    /// Why nothing usable came back ("HTTP 404", "timed out", "not a certificate", "skipped: https"), nil on success.
    public var failure: String?

    public init(url: String, forSubject: String, certificates: [CertificateFacts], failure: String?) {
        self.url = url
        self.forSubject = forSubject
        self.certificates = certificates
        self.failure = failure
    }
}

/// What the other system store says of the same chain.
public struct StoreComparison: Hashable, Sendable, Codable {
    /// The other store, named with its version.
    public var store: String
    /// Whether the chain reaches one of its roots.
    public var trusts: Bool
    /// One line for people: "trusted by the system store (...), not by Apple's root store (...)".
    public var detail: String

    public init(store: String, trusts: Bool, detail: String) {
        self.store = store
        self.trusts = trusts
        self.detail = detail
    }
}

public enum AnchorSource: String, Hashable, Sendable, Codable {
    /// The system trust store: a public root, subject to the 398-day and CT rules.
    case system
    /// --ca-file / --ca-dir: treated as a user-installed root.
    case user
    /// Anchors an app sets itself (SecTrustSetAnchorCertificates; `cert --app-anchor`): Apple's
    /// "all other trust": 825 days, key sizes, SHA-1 and the strict serverAuth EKU from
    /// 2019-07-01 apply, 398 days and CT do not, and a self-signed leaf set as the anchor is
    /// not exempt as a user-trusted one is (docs/trust.md, "Anchor kinds").
    case app
}

/// One reason the chain is not trusted.
public struct TrustProblem: Hashable, Sendable, Codable, CustomStringConvertible {
    public enum Kind: String, Hashable, Sendable, Codable {
        case untrustedRoot, expired, notYetValid, nameMismatch, selfSigned, incompleteChain, invalidChain
    }
    public var kind: Kind
    /// Index in the served chain of the certificate concerned (0 = leaf), when known.
    public var certificateIndex: Int?
    /// One line for people, naming the certificate or the name.
    public var detail: String

    public init(kind: Kind, certificateIndex: Int? = nil, detail: String) {
        self.kind = kind
        self.certificateIndex = certificateIndex
        self.detail = detail
    }

    public var description: String { "\(kind.rawValue): \(detail)" }
}

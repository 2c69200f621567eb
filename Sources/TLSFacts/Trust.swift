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

    public var isTrusted: Bool { problems.isEmpty }

    public init(problems: [TrustProblem], anchor: AnchorSource?, evaluatedAt: Date) {
        self.problems = problems
        self.anchor = anchor
        self.evaluatedAt = evaluatedAt
    }
}

public enum AnchorSource: String, Hashable, Sendable, Codable {
    /// The system trust store: a public root, subject to the 398-day and CT rules.
    case system
    /// --ca-file / --ca-dir: treated as a user-installed root.
    case user
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

import TLSFacts

/// One reason a load fails, as data, with a one-line message traced to the observation.
public struct FailureReason: Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// The protocol is below what the policy (or the platform) offers.
        case protocolTooOld
        /// The suite is outside what the policy (or the platform) offers.
        case suiteNotAllowed
        /// A TLS_RSA suite while forward secrecy is required.
        case notForwardSecret
        case leafKeyTooSmall
        case leafSignatureHashWeak
        /// Default trust evaluation (2A): the chain.
        case trust(TrustProblem.Kind)
        /// Default trust evaluation (2A): an Apple certificate rule, by CertificateRuleViolation.rule.
        case certificateRule(CertificateRuleID)
        /// NSPinnedDomains identities not met.
        case pinMismatch
        /// No TLS peer reached (name, refused, unreachable, timeout, not TLS).
        case unreachable(ProbeFailure.Kind)
        /// The handshake failed (protocol_version, handshake_failure, other alerts, closed).
        case handshakeFailed(ProbeFailure.Kind)
        /// http:// while ATS requires a secure connection.
        case cleartextBlocked
        /// The request failed after the handshake.
        case httpFailure
        /// A redirect loop, or more redirects than URLSession follows (16).
        case tooManyRedirects
    }

    /// Which part of the rules the reason belongs to.
    public enum Layer: String, Sendable, Hashable, Codable {
        /// Could not talk TLS to the server at all.
        case connection
        /// The handshake, under the offer the client would send.
        case handshake
        /// Default trust evaluation (2A): fails under every dictionary.
        case trust
        /// ATS extended requirements (2B): relaxed by exceptions.
        case ats
        /// http:// blocked.
        case cleartext
    }

    public var kind: Kind
    public var layer: Layer
    /// The finding, one clause traced to the observation.
    public var statement: String
    /// What other handshakes showed about it (`ReasonContext`), kept as data and said once, by
    /// `message`.
    public var context: ReasonContext?

    public init(_ kind: Kind, layer: Layer, _ statement: String, context: ReasonContext? = nil) {
        self.kind = kind
        self.layer = layer
        self.statement = statement
        self.context = context
    }

    /// The reason as clauses: the statement, then what its context adds. Advice that already
    /// said a clause leaves it out (whole clauses, never parts of a sentence).
    public var clauses: [Clause] { context.map { $0.clauses(after: statement) } ?? [Clause(statement)] }

    /// The one line for people: the clauses, rendered once.
    public var message: String { clauses.line }

    public var description: String { message }

    // Two reasons that read the same are the same reason, however they were put together (a
    // decoded reason holds its message as the statement).
    public static func == (a: FailureReason, b: FailureReason) -> Bool {
        a.kind == b.kind && a.layer == b.layer && a.message == b.message
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(layer)
        hasher.combine(message)
    }

    /// A stable string for the kind: "protocolTooOld", "trust.expired", "certificateRule.rsa-key-size",
    /// "handshakeFailed.noSharedCipher" (the JSON form).
    public var code: String {
        switch kind {
        case .protocolTooOld: "protocolTooOld"
        case .suiteNotAllowed: "suiteNotAllowed"
        case .notForwardSecret: "notForwardSecret"
        case .leafKeyTooSmall: "leafKeyTooSmall"
        case .leafSignatureHashWeak: "leafSignatureHashWeak"
        case .trust(let k): "trust.\(k.rawValue)"
        case .certificateRule(let rule): "certificateRule.\(rule)"
        case .pinMismatch: "pinMismatch"
        case .unreachable(let k): "unreachable.\(k.rawValue)"
        case .handshakeFailed(let k): "handshakeFailed.\(k.rawValue)"
        case .cleartextBlocked: "cleartextBlocked"
        case .httpFailure: "httpFailure"
        case .tooManyRedirects: "tooManyRedirects"
        }
    }

    static func kind(code: String) -> Kind? {
        let parts = code.split(separator: ".", maxSplits: 1).map(String.init)
        let detail = parts.count > 1 ? parts[1] : ""
        switch parts.first ?? "" {
        case "protocolTooOld": return .protocolTooOld
        case "suiteNotAllowed": return .suiteNotAllowed
        case "notForwardSecret": return .notForwardSecret
        case "leafKeyTooSmall": return .leafKeyTooSmall
        case "leafSignatureHashWeak": return .leafSignatureHashWeak
        case "trust": return TrustProblem.Kind(rawValue: detail).map(Kind.trust)
        case "certificateRule": return .certificateRule(CertificateRuleID(rawValue: detail))
        case "pinMismatch": return .pinMismatch
        case "unreachable": return ProbeFailure.Kind(rawValue: detail).map(Kind.unreachable)
        case "handshakeFailed": return ProbeFailure.Kind(rawValue: detail).map(Kind.handshakeFailed)
        case "cleartextBlocked": return .cleartextBlocked
        case "httpFailure": return .httpFailure
        case "tooManyRedirects": return .tooManyRedirects
        default: return nil
        }
    }

    private enum CodingKeys: String, CodingKey { case kind, layer, message }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let code = try c.decode(String.self, forKey: .kind)
        guard let kind = FailureReason.kind(code: code) else {
            throw DecodingError.dataCorruptedError(forKey: .kind, in: c, debugDescription: "unknown failure kind \(code)")
        }
        self.init(kind, layer: try c.decode(Layer.self, forKey: .layer), try c.decode(String.self, forKey: .message))
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(code, forKey: .kind)
        try c.encode(layer, forKey: .layer)
        try c.encode(message, forKey: .message)
    }
}

/// PASS or FAIL for one load, with every reason found and the error an Apple client would report.
public struct Verdict: Sendable, Hashable, Codable {
    public var passed: Bool
    public var reasons: [FailureReason]
    /// The error of the first reason (the one the client would hit first); nil on PASS.
    public var error: AppleError?

    public init(passed: Bool, reasons: [FailureReason] = [], error: AppleError? = nil) {
        self.passed = passed
        self.reasons = reasons
        self.error = error
    }

    public static let pass = Verdict(passed: true)

    static func fail(_ reasons: [FailureReason], _ error: AppleError) -> Verdict {
        Verdict(passed: false, reasons: reasons, error: error)
    }
}

import ATSPolicy

/// `{"kind": "none"}`, `{"kind": "exception", "domain": ..., "exception": {...}, "rationale": [...]}`,
/// `{"kind": "impossible", "reason": ...}`.
extension ExceptionSuggestion: Codable {
    private enum CodingKeys: String, CodingKey { case kind, domain, exception, rationale, reason }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        switch try c.decode(String.self, forKey: .kind) {
        case "none": self = .none
        case "exception":
            self = .exception(domain: try c.decode(String.self, forKey: .domain), try c.decode(DomainException.self, forKey: .exception),
                              rationale: try c.decode([KeyEvidence].self, forKey: .rationale))
        case "impossible": self = .impossible(reason: try c.decode(String.self, forKey: .reason))
        case let other:
            throw DecodingError.dataCorruptedError(forKey: .kind, in: c, debugDescription: "unknown suggestion kind \(other)")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .none: try c.encode("none", forKey: .kind)
        case .exception(let domain, let exception, let rationale):
            try c.encode("exception", forKey: .kind)
            try c.encode(domain, forKey: .domain)
            try c.encode(exception, forKey: .exception)
            try c.encode(rationale, forKey: .rationale)
        case .impossible(let reason):
            try c.encode("impossible", forKey: .kind)
            try c.encode(reason, forKey: .reason)
        }
    }
}

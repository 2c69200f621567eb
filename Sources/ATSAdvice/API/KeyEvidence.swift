import ATSPolicy
import TLSFacts

/// Why one key of a suggested exception is needed, as data: the facts the handshakes showed,
/// the advisor's comparison with the next stronger setting, and the protocol and suites it saw.
/// `observation` renders it once; nothing edits the sentence afterwards.
public struct KeyEvidence: Sendable, Hashable, Codable {
    public var key: String
    /// The value as Info.plist spells it ("TLSv1.1", "false", "true").
    public var value: String
    /// The decisive facts, said first (one clause each).
    public var facts: [Clause]
    /// The test with the stronger setting, and how it went.
    public var comparison: SettingComparison?
    /// The best protocol any handshake completed (for NSExceptionMinimumTLSVersion).
    public var bestProtocol: TLSVersion?
    /// The suites the server chose that are not forward secret (for NSExceptionRequiresForwardSecrecy).
    public var chosenSuites: [CipherSuite]
    /// Text read back from JSON, where only the rendered line is kept.
    private var decodedText: String?

    public init(key: String, value: String, facts: [Clause] = [], comparison: SettingComparison?,
                bestProtocol: TLSVersion? = nil, chosenSuites: [CipherSuite] = []) {
        self.key = key
        self.value = value
        self.facts = facts
        self.comparison = comparison
        self.bestProtocol = bestProtocol
        self.chosenSuites = chosenSuites
    }

    /// Evidence known only as its line (read from a report).
    public init(key: String, value: String, observation: String) {
        self.init(key: key, value: value, comparison: nil)
        decodedText = observation
    }

    /// The fact that made the key necessary, as one line: the facts, then the clauses of the
    /// comparison the facts do not already say.
    public var observation: String {
        if let decodedText { return decodedText }
        var clauses = comparison?.clauses ?? []
        if let bestProtocol { clauses.append(Clause(.serverHighestProtocol(bestProtocol), "best protocol seen: \(bestProtocol)")) }
        if !chosenSuites.isEmpty {
            clauses.append(Clause(.serverChose(chosenSuites.sorted()), "server chose \(chosenSuites.sorted().map(\.ianaName).joined(separator: ", "))"))
        }
        return (facts + clauses.notSaid(by: facts)).line
    }

    public static func == (a: KeyEvidence, b: KeyEvidence) -> Bool {
        (a.key, a.value, a.observation) == (b.key, b.value, b.observation)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(key)
        hasher.combine(value)
        hasher.combine(observation)
    }

    private enum CodingKeys: String, CodingKey { case key, value, observation }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(key: try c.decode(String.self, forKey: .key), value: try c.decode(String.self, forKey: .value),
                  observation: try c.decode(String.self, forKey: .observation))
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(key, forKey: .key)
        try c.encode(value, forKey: .value)
        try c.encode(observation, forKey: .observation)
    }
}

/// How the next stronger setting fared: its test's verdict, not tested at all, or a rule that
/// stands in for a test nscurl never makes.
public enum SettingComparison: Sendable, Hashable {
    /// `setting` ("minimum TLS 1.2", "with forward secrecy required") was tested.
    case tested(setting: String, Verdict)
    case untested(setting: String)
    /// The rule itself is the evidence.
    case rule(String)

    /// "minimum TLS 1.2 fails" followed by the first reason's clauses.
    var clauses: [Clause] {
        switch self {
        case .tested(let setting, let verdict):
            let outcome = verdict.passed ? "passes" : "fails"
            guard let reason = verdict.reasons.first, let first = reason.clauses.first else { return [Clause("\(setting) \(outcome): \(outcome)")] }
            return [Clause("\(setting) \(outcome): \(first.text)")] + reason.clauses.dropFirst()
        case .untested(let setting): return [Clause("\(setting): not tested separately")]
        case .rule(let text): return [Clause(text)]
        }
    }
}

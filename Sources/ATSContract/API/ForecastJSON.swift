import TextSupport
import ATSPolicy
import TLSFacts
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `--forecast` in the JSON contract (docs/json-schema.md, "Forecast"): the window, each change
/// of verdict or required exception within it (`forecast`), and the renewal check (`renewal`).
public struct ForecastWindowJSON: Codable, Sendable, Hashable {
    /// The instant forecast from (the run's judgement date, whole seconds).
    public let from: Date
    public let horizonSeconds: Int
    /// The verdict and exception at `from`, as the forecast judges them.
    public let now: ForecastStateJSON

    /// The longest horizon a run forecasts (ten years): `--forecast` and the run context refuse
    /// longer ones, and a record holding one is bad input.
    public static let maximumHorizonSeconds = 3_650 * 86_400

    public init(from: Date, horizonSeconds: Int, now: ForecastStateJSON) {
        self.from = from
        self.horizonSeconds = horizonSeconds
        self.now = now
    }

    private enum CodingKeys: String, CodingKey { case from, horizonSeconds, now }

    /// Read with the horizon in 1 s ... `maximumHorizonSeconds` (2^63-1 trapped every renderer: issue 40).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        from = try c.decode(Date.self, forKey: .from)
        horizonSeconds = try CheckedNumber.integer(c, .horizonSeconds, in: 1...Self.maximumHorizonSeconds, "1 to 315360000 seconds, 3650 days")
        now = try c.decode(ForecastStateJSON.self, forKey: .now)
    }

    /// Whether the target could be judged at all: false when nothing answered TLS (unreachable,
    /// timed out, a bad line), whose forecast is unknown rather than "no change" (nothing was
    /// observed that could change).
    public var judged: Bool {
        switch now.verdict {
        case .pass, .exception, .noException: true
        case .unreachable, .timeout, .error: false
        }
    }
}

public struct ForecastStateJSON: Codable, Sendable, Hashable {
    public let verdict: AuditVerdict
    /// The exception entry's keys, `Key=Value`, sorted; empty when none is needed or none helps.
    public let exception: [String]

    public init(verdict: AuditVerdict, exception: [String]) {
        self.verdict = verdict
        self.exception = exception
    }

    /// Worse: a verdict further from `pass` (pass < exception < no-exception), or another exception
    /// under the same verdict. The one rule: the engine's `ForecastState` asks it too.
    public func isWorse(than other: ForecastStateJSON) -> Bool {
        func rank(_ verdict: AuditVerdict) -> Int {
            switch verdict {
            case .pass: 0
            case .exception: 1
            case .noException: 2
            case .unreachable, .timeout, .error: 3
            }
        }
        return rank(verdict) > rank(other.verdict) || (verdict == .exception && other.verdict == .exception && exception != other.exception)
    }
}

public struct ForecastChangeJSON: Codable, Sendable, Hashable {
    /// The first instant of the new state (one second before, the old one held).
    public let at: Date
    public let before: ForecastStateJSON
    public let after: ForecastStateJSON
    public let causes: [Cause]

    public struct Cause: Codable, Sendable, Hashable {
        public let kind: ForecastCauseKind
        public let subject: String
        public let sha256: String?
        public let date: Date
        public let source: String?

        public init(kind: ForecastCauseKind, subject: String, sha256: String?, date: Date, source: String?) {
            self.kind = kind
            self.subject = subject
            self.sha256 = sha256
            self.date = date
            self.source = source
        }
    }

    public init(at: Date, before: ForecastStateJSON, after: ForecastStateJSON, causes: [Cause]) {
        self.at = at
        self.before = before
        self.after = after
        self.causes = causes
    }

    /// "the leaf 'CN=example.com' expires (notAfter 2027-01-31T12:00:00Z)", for every sink.
    public var causeText: String {
        causes.map { cause in
            switch cause.kind {
            case .leafExpires: "leaf '\(cause.subject)' expires (notAfter \(ForecastText.iso(cause.date)))"
            case .intermediateExpires: "intermediate '\(cause.subject)' expires (notAfter \(ForecastText.iso(cause.date)))"
            case .anchorExpires: "anchor '\(cause.subject)' expires (notAfter \(ForecastText.iso(cause.date)))"
            case .becomesValid: "'\(cause.subject)' becomes valid (notBefore \(ForecastText.iso(cause.date)))"
            case .rootDistrusted: "root '\(cause.subject)' distrusted for certificates issued from \(ForecastText.iso(cause.date))"
            case .ctLogState: "CT log \(cause.subject) from \(ForecastText.iso(cause.date))"
            case .sctTimestamp: "SCT from \(cause.subject) timestamped \(ForecastText.iso(cause.date)) starts to count"
            }
        }.joined(separator: "; ")
    }
}

public struct RenewalJSON: Codable, Sendable, Hashable {
    public let issuedAt: Date
    public let lifetimeSeconds: Int64
    public let passes: Bool
    public let violations: [CertificateRuleViolation]
    public let advice: [String]
    public let failsFrom: Date?
    public let failsFromViolations: [CertificateRuleViolation]?

    public init(issuedAt: Date, lifetimeSeconds: Int64, passes: Bool, violations: [CertificateRuleViolation], advice: [String],
                failsFrom: Date?, failsFromViolations: [CertificateRuleViolation]?) {
        self.issuedAt = issuedAt
        self.lifetimeSeconds = lifetimeSeconds
        self.passes = passes
        self.violations = violations
        self.advice = advice
        self.failsFrom = failsFrom
        self.failsFromViolations = failsFromViolations
    }
}

/// What a forecast change's cause is (the JSON's `causes[].kind`; the engine's `ForecastCause.Kind`).
public enum ForecastCauseKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// The leaf's notAfter passes (the instant is notAfter + 1 s: Apple's validity is inclusive).
    case leafExpires = "leaf-expires"
    case intermediateExpires = "intermediate-expires"
    case anchorExpires = "anchor-expires"
    /// A certificate's notBefore arrives.
    case becomesValid = "becomes-valid"
    /// A root in the path is distrusted for certificates issued from this instant (renewals).
    case rootDistrusted = "root-distrusted"
    /// A CT log that signed one of the leaf's SCTs enters its listed state.
    case ctLogState = "ct-log-state"
    /// An SCT timestamped after the run's instant: Apple counts it only from its timestamp
    /// (the instant is the whole second at or after it).
    case sctTimestamp = "sct-timestamp"
}

import ATSContract
import ATSAdvice
import ATSPolicy
import PropertyList
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

/// What a target will come to within a horizon, from what one run observed (no new handshake):
/// each instant at which its verdict or required exception changes, with the certificate or rule
/// behind it, and whether a certificate issued today by the same issuer would be trusted
/// (docs/forecast.md). Exact by construction: every change is the run's own judgement
/// (`LoadWalk`, `ExceptionAdvisor`) of the recorded handshakes at the instant and one second
/// before, kept only when the two differ.
public struct TargetForecast: Sendable, Hashable {
    /// The instant forecast from: the run's judgement date (`--at`, else its start), whole seconds.
    public var from: Date
    public var horizonSeconds: Int
    /// The target's verdict and required exception at `from`.
    public var now: ForecastState
    /// Every change within (from, from + horizon], earliest first.
    public var changes: [ForecastChange]
    /// A certificate issued at `from` by the same issuer; nil when the chain reaches no anchor today
    /// or no handshake completed.
    public var renewal: RenewalCheck?

    public init(from: Date, horizonSeconds: Int, now: ForecastState, changes: [ForecastChange], renewal: RenewalCheck?) {
        self.from = from
        self.horizonSeconds = horizonSeconds
        self.now = now
        self.changes = changes
        self.renewal = renewal
    }

    /// The first change, when there is one within the horizon.
    public var next: ForecastChange? { changes.first }

    /// The first change after which the target loads worse than now (a pass that stops passing,
    /// an exception that stops helping): what `--fail-on expiring:DURATION` gates on.
    public var firstWorsening: ForecastChange? {
        changes.first { $0.after.isWorse(than: now) }
    }
}

/// A target's verdict and the exception it needs at one instant.
public struct ForecastState: Sendable, Hashable {
    public var verdict: AuditVerdict
    /// The NSExceptionDomains entry's keys and values as Info.plist spells them ("NSExceptionMinimumTLSVersion=TLSv1.0"), sorted; empty when none is needed or none helps.
    public var exception: [String]

    public init(verdict: AuditVerdict, exception: [String]) {
        self.verdict = verdict
        self.exception = exception
    }

    init(verdict: AuditVerdict, suggestion: ExceptionSuggestion) {
        self.verdict = verdict
        if case .exception(_, let entry, _) = suggestion {
            exception = entry.propertyList.keys.sorted().map { "\($0)=\(ForecastState.text(entry.propertyList[$0]!))" }
        } else {
            exception = []
        }
    }

    private static func text(_ value: PropertyListValue) -> String {
        if case .boolean(let flag) = value { return flag ? "YES" : "NO" }
        return value.scalarText
    }

    /// Worse, by the contract's one rule (`ForecastStateJSON.isWorse`).
    public func isWorse(than other: ForecastState) -> Bool {
        ForecastStateJSON(verdict: verdict, exception: exception).isWorse(than: ForecastStateJSON(verdict: other.verdict, exception: other.exception))
    }
}

/// One instant at which the verdict or the required exception changes.
public struct ForecastChange: Sendable, Hashable {
    /// The first instant of the new state: at `at` it holds, at `at - 1 s` the old one did.
    public var at: Date
    public var before: ForecastState
    public var after: ForecastState
    /// What happens at that instant (several when they coincide).
    public var causes: [ForecastCause]

    public init(at: Date, before: ForecastState, after: ForecastState, causes: [ForecastCause]) {
        self.at = at
        self.before = before
        self.after = after
        self.causes = causes
    }
}

/// A dated event a forecast looks at: a certificate's validity ending or starting, a root's
/// date-based distrust, a CT log's state taking effect.
public struct ForecastCause: Sendable, Hashable {
    /// The contract's names (ATSContract's `ForecastCauseKind`): one list for the engine and the JSON.
    public typealias Kind = ForecastCauseKind

    public var kind: Kind
    /// The certificate's subject or the log's or root's name (untrusted text for certificates).
    public var subject: String
    /// The certificate's SHA-256 fingerprint, when a certificate is the cause.
    public var sha256: String?
    /// The date as the certificate or rule gives it (notAfter, distrust date, log state date).
    public var date: Date
    /// Where a rule comes from (Apple's article, the log list), when a rule is the cause.
    public var source: String?

    public init(kind: Kind, subject: String, sha256: String? = nil, date: Date, source: String? = nil) {
        self.kind = kind
        self.subject = subject
        self.sha256 = sha256
        self.date = date
        self.source = source
    }
}

/// Would a certificate issued now by the same issuer, with the same names, key and lifetime, be
/// trusted, and stay so within the horizon? Apple's certificate rules (`AppleCertificatePolicy`)
/// and the path's validity (the issuing CA's and the anchor's) judge that leaf on the path the run
/// built, at the instant of issue and at each of the forecast's instants (`RenewalJudge`).
public struct RenewalCheck: Sendable, Hashable {
    /// The instant the renewed certificate is taken as issued and judged.
    public var issuedAt: Date
    /// The lifetime asked for: the current leaf's, in whole seconds.
    public var lifetimeSeconds: Int64
    /// The rules that renewal breaks (empty: it would be trusted).
    public var violations: [CertificateRuleViolation]
    /// What the operator should do, one line per broken rule ("change CA", "ask for at most 398 days").
    public var advice: [String]
    /// Within the horizon, the first instant from which a renewal breaks a rule it does not break now
    /// (a root's distrust date, an issuing CA's or the anchor's notAfter + 1 s), and why.
    public var failsFrom: Date?
    public var failsFromViolations: [CertificateRuleViolation]

    public var passes: Bool { violations.isEmpty }

    public init(issuedAt: Date, lifetimeSeconds: Int64, violations: [CertificateRuleViolation], advice: [String],
                failsFrom: Date?, failsFromViolations: [CertificateRuleViolation]) {
        self.issuedAt = issuedAt
        self.lifetimeSeconds = lifetimeSeconds
        self.violations = violations
        self.advice = advice
        self.failsFrom = failsFrom
        self.failsFromViolations = failsFromViolations
    }
}

import ATSPolicy
import ATSProbe
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

/// What `probe --fail-on` can make fail.
public enum ProbeCheck: String, CaseIterable, Codable, Sendable {
    /// The chain does not verify to an anchor (expired, wrong name, unknown root, ...).
    case trust
    /// Apple's certificate rules other than CT (key size, SHA-1, lifetime, SAN, EKU).
    case appleRules = "apple-rules"
    /// Apple's Certificate Transparency policy.
    case ct
    case all, none
}

/// `atsprobe probe`: one handshake with the widest offer, judged once for every output: trust,
/// Apple's certificate rules and the CT verdict, and which of them failed.
public struct ProbeJudgement: Sendable {
    public var target: Target
    public var result: ProbeResult
    /// When Apple's rules were judged (the trust evaluation's date: --at or the run's start);
    /// nil without a handshake.
    public var evaluatedAt: Date?
    /// Apple's certificate rules the chain breaks (CT included); nil without a handshake.
    public var appleRuleViolations: [CertificateRuleViolation]?
    public var certificateTransparency: CTPolicyResult?
    /// The checks that failed: trust, apple-rules, ct (whatever --fail-on says), in that order.
    public var failed: [ProbeCheck]

    /// Judges `result` under `ruleSet`'s certificate rules (probe has no --rules: the newest
    /// release's) with `logs`' CT logs.
    public init(target: Target, result: ProbeResult, logs: CTLogList, ruleSet: RuleSet) {
        self.target = target
        self.result = result
        switch result {
        case .success(let observation):
            let at = observation.trust.evaluatedAt
            // One derivation of CT: the verdict shown and the violation listed come from it.
            let judged = AppleCertificatePolicy.judgement(in: observation, at: at, rules: ruleSet.certificateRules, logs: logs)
            var failed: [ProbeCheck] = []
            if !observation.trust.isTrusted { failed.append(.trust) }
            if judged.violations.contains(where: { $0.rule != CertificateRuleID.certificateTransparency }) { failed.append(.appleRules) }
            if judged.certificateTransparency.verdict == .nonCompliant { failed.append(.ct) }
            evaluatedAt = at
            appleRuleViolations = judged.violations
            certificateTransparency = judged.certificateTransparency
            self.failed = failed
        case .failure:
            evaluatedAt = nil
            appleRuleViolations = nil
            certificateTransparency = nil
            failed = []
        }
    }

    /// Unreachable when nothing spoke TLS; findings when the handshake failed, or a check
    /// `failOn` names failed; else clear.
    public func severity(failOn: Set<ProbeCheck>) -> AuditSeverity {
        if case .failure(let failure) = result { return failure.isUnreachable ? .unreachable : .findings }
        if failOn.contains(.none) { return .clear }
        let checked = failOn.contains(.all) ? Set([ProbeCheck.trust, .appleRules, .ct]) : failOn
        return failed.contains(where: checked.contains) ? .findings : .clear
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport
import TLSFacts

/// Apple's Certificate Transparency policy (support article 103214), judged at an injected
/// date against a CT log list.
///
/// At least two SCTs from once- or currently approved logs, and either
/// - (delivered) two SCTs from distinct currently approved logs, one of them delivered by the TLS
///   extension or a stapled OCSP response; or
/// - (embedded) one embedded SCT from a currently approved log, and embedded SCTs from distinct
///   once- or currently approved logs by lifetime: <= 180 days 2 (at most 1 per operator counts),
///   181-398 days 3 (at most 2 per operator count); certificates issued before 2021-04-21, and
///   any longer than 398 days, use the older table: < 15 months 2, 15-27 3, 27-39 4, more 5.
/// At least one counted SCT must come from an RFC 6962 log (not only static-ct-api logs).
///
/// CT applies to chains ending at a public root (anchor .system) and whenever
/// NSRequiresCertificateTransparency is set, for leaves issued on or after 2018-10-16; not to a
/// public root's chain for a host Apple's system pinning list names (`pinningPolicy`: trustd
/// then judges under the list's policy, and the system-root CT check asks for the SSL server
/// policy by name; docs/trust.md "Apple's system pinning list").
package struct CTPolicy: Sendable {
    package var logs: CTLogList
    package var rules: CertificateRuleSet

    package init(logs: CTLogList = .apple, rules: CertificateRuleSet) {
        self.logs = logs
        self.rules = rules
    }

    package func evaluate(leaf: CertificateFacts?, deliveredSCTs: [SignedCertificateTimestamp],
                         anchor: AnchorSource?, requireCertificateTransparency: Bool,
                         at date: Date, anchorFingerprint: String? = nil, pinningPolicy: String? = nil) -> CTPolicyResult {
        let all = (leaf?.embeddedSCTs ?? []) + deliveredSCTs
        let assessments = all.map { assess($0, at: date) }
        var result = CTPolicyResult(
            verdict: .notRequired, reason: "", satisfiedBy: nil,
            embeddedSCTs: all.filter { $0.source == .embedded }.count,
            tlsExtensionSCTs: all.filter { $0.source == .tlsExtension }.count,
            ocspStapleSCTs: all.filter { $0.source == .ocspStaple }.count,
            assessments: assessments, lifetimeDays: nil, embeddedRequired: nil,
            embeddedMaximumPerOperator: nil, embeddedCounted: 0, currentLogsCounted: 0,
            operators: [], unknownLogIDs: Array(Set(assessments.filter { $0.log == nil }.map(\.logID))).sorted())

        guard let leaf else {
            result.reason = "no certificate was served"
            return result
        }
        let lifetime = CertificateLifetime(leaf)
        result.lifetimeDays = lifetime.days
        let requirement = embeddedRequirement(notBefore: leaf.notBefore, notAfter: leaf.notAfter, lifetime: lifetime)
        result.embeddedRequired = requirement.count
        result.embeddedMaximumPerOperator = requirement.perOperator

        // The embedded way: distinct qualifying logs, capped per operator.
        let embedded = distinctLogs(assessments.filter { $0.source == .embedded && $0.fromOnceOrCurrentlyApprovedLog })
        let embeddedCounted = capped(embedded, perOperator: requirement.perOperator)
        let embeddedHasCurrent = assessments.contains { $0.source == .embedded && $0.fromCurrentlyApprovedLog }
        result.embeddedCounted = embeddedCounted.count
        let embeddedMet = embeddedHasCurrent && embeddedCounted.count >= requirement.count
            && embeddedCounted.contains { $0.api == .rfc6962 }

        // The delivered way: two distinct current logs, one SCT not embedded.
        let current = distinctLogs(assessments.filter(\.fromCurrentlyApprovedLog))
        let deliveredCurrent = assessments.contains { $0.source != .embedded && $0.fromCurrentlyApprovedLog }
        result.currentLogsCounted = current.count
        let deliveredMet = current.count >= 2 && deliveredCurrent && current.contains { $0.api == .rfc6962 }

        let counting = embeddedMet ? embeddedCounted : (deliveredMet ? current : embedded + current)
        result.operators = Array(Set(counting.map(\.operatorName))).sorted()

        let applies: String
        // Apple's own roots are system anchors exempt from the requirement (SecPolicyServer.c
        // SecPolicyCheckSystemTrustedCTRequired: "root in the system anchor source but not the
        // Apple anchor source"; SecAppleAnchor.c getAnchors).
        let appleRoot = anchor == .system && anchorFingerprint.map(AppleAnchors.contains) == true
        if appleRoot && !requireCertificateTransparency {
            result.reason = "not required: the chain ends at one of Apple's own roots, which Apple exempts"
            result.satisfiedBy = embeddedMet ? .embedded : (deliveredMet ? .delivered : nil)
            return result
        } else if anchor == .system && pinningPolicy == nil {
            applies = "the chain ends at a public (system) root"
        } else if requireCertificateTransparency {
            applies = "NSRequiresCertificateTransparency is set"
        } else {
            result.reason = switch anchor {
            // SecTrustServer.c SecPathBuilderAddPinningPolicies renames the host's policy to the
            // list's; SecPolicyServer.c SecPolicyCheckSystemTrustedCTRequired runs only under
            // kSecPolicyNameSSLServer.
            case .system: "not required: Apple's system pinning list names the host (policy \(pinningPolicy ?? "")), "
                + "whose policy trustd judges without the system-root CT check"
            case .user: "not required: the chain ends at a user-installed root"
            case .app: "not required: the chain ends at an anchor the app set, not a system root"
            default: "not required: the chain was not verified to a public root"
            }
            result.satisfiedBy = embeddedMet ? .embedded : (deliveredMet ? .delivered : nil)
            return result
        }
        guard leaf.notBefore >= rules.certificateTransparencyFrom else {
            result.reason = "not required: the leaf was issued before \(dayString(rules.certificateTransparencyFrom))"
            return result
        }
        if embeddedMet || deliveredMet {
            result.verdict = .compliant
            result.satisfiedBy = embeddedMet ? .embedded : .delivered
            result.reason = embeddedMet
                ? "required (\(applies)): \(embeddedCounted.count) embedded SCTs from approved logs, \(requirement.count) needed for \(lifetime.days) days"
                : "required (\(applies)): SCTs from \(current.count) current logs, one delivered by TLS extension or OCSP staple"
        } else {
            result.verdict = .nonCompliant
            result.reason = "required (\(applies)): " + shortfall(
                embedded: embeddedCounted, embeddedHasCurrent: embeddedHasCurrent, requirement: requirement,
                lifetimeDays: lifetime.days, current: current, deliveredCurrent: deliveredCurrent, total: all.count)
            // Say why SCTs that look right were not counted: their signatures.
            let unverified = [("whose signature does not verify", SignedCertificateTimestamp.SignatureCheck.invalid),
                              ("from logs whose key is unknown", .unknownLog), ("whose issuer is unknown", .noIssuer)]
                .compactMap { text, check -> String? in
                    let count = all.filter { $0.signature == check && logs[$0.logID] != nil }.count
                    return count == 0 ? nil : "\(count) SCT\(count == 1 ? "" : "s") \(text)"
                }
            if !unverified.isEmpty { result.reason += "; not counted: " + unverified.joined(separator: ", ") }
        }
        return result
    }

    // MARK: - Counting

    func assess(_ sct: SignedCertificateTimestamp, at date: Date) -> SCTAssessment {
        let log = logs[sct.logID]
        var assessment = SCTAssessment(source: sct.source, logID: sct.logID, timestamp: sct.timestamp, log: log,
                                       fromCurrentlyApprovedLog: false, fromOnceOrCurrentlyApprovedLog: false, note: nil)
        guard let log else {
            assessment.note = "unknown log"
            return assessment
        }
        guard sct.timestamp <= date else {
            assessment.note = "timestamp in the future"
            return assessment
        }
        switch sct.signature {
        case .valid, .notChecked: break
        case .invalid:
            assessment.note = "the log's signature does not verify"
            return assessment
        case .unknownLog:
            assessment.note = "no key for this log: signature not checked"
            return assessment
        case .noIssuer:
            assessment.note = "the leaf's issuer is unknown: signature not checked"
            return assessment
        }
        assessment.fromCurrentlyApprovedLog = log.isCurrentlyApproved(sctTimestamp: sct.timestamp, at: date)
        assessment.fromOnceOrCurrentlyApprovedLog = log.isOnceOrCurrentlyApproved(sctTimestamp: sct.timestamp, at: date)
        if !assessment.fromOnceOrCurrentlyApprovedLog {
            assessment.note = "log \(log.state.rawValue) since \(dayString(log.stateSince))"
        }
        return assessment
    }

    /// One entry per log, whatever the number of SCTs from it.
    func distinctLogs(_ assessments: [SCTAssessment]) -> [CTLog] {
        var seen = Set<String>()
        return assessments.compactMap { a in
            guard let log = a.log, seen.insert(log.logID).inserted else { return nil }
            return log
        }
    }

    /// Keeps at most `perOperator` logs of each operator (nil = no cap).
    func capped(_ logs: [CTLog], perOperator: Int?) -> [CTLog] {
        guard let perOperator else { return logs }
        var perName: [String: Int] = [:]
        return logs.filter { log in
            perName[log.operatorName, default: 0] += 1
            return perName[log.operatorName]! <= perOperator
        }
    }

    /// The embedded SCT count Apple asks for at this lifetime, and the per-operator cap.
    func embeddedRequirement(notBefore: Date, notAfter: Date, lifetime: CertificateLifetime) -> (count: Int, perOperator: Int?) {
        if notBefore >= rules.currentSCTTableFrom {
            if lifetime.days <= 180 { return (2, 1) }
            if lifetime.days <= 398 { return (3, 2) }
        }
        // The proleptic Gregorian calendar for every year (CivilCalendar), as Apple's
        // CFCalendar-free month arithmetic over absolute times is for modern dates.
        func months(_ n: Int) -> Date {
            Date(timeIntervalSince1970: CivilCalendar.secondsSinceEpoch(notBefore.timeIntervalSince1970, addingMonths: n))
        }
        if notAfter < months(15) { return (2, nil) }
        if notAfter < months(27) { return (3, nil) }
        if notAfter < months(39) { return (4, nil) }
        return (5, nil)
    }

    func shortfall(embedded: [CTLog], embeddedHasCurrent: Bool, requirement: (count: Int, perOperator: Int?),
                   lifetimeDays: Int, current: [CTLog], deliveredCurrent: Bool, total: Int) -> String {
        if total == 0 { return "no SCTs were presented (embedded, TLS extension or OCSP staple)" }
        var embeddedPart = "\(embedded.count) qualifying embedded SCTs of \(requirement.count) needed for \(lifetimeDays) days"
        if let cap = requirement.perOperator { embeddedPart += " (at most \(cap) per operator counted)" }
        if !embeddedHasCurrent { embeddedPart += ", none from a currently approved log" }
        let deliveredPart = deliveredCurrent
            ? "SCTs from \(current.count) current logs where 2 are needed"
            : "no SCT from a current log delivered by TLS extension or OCSP staple"
        var text = embeddedPart + "; " + deliveredPart
        if !(embedded + current).isEmpty, !(embedded + current).contains(where: { $0.api == .rfc6962 }) {
            text += "; no SCT from an RFC 6962 log"
        }
        return text
    }
}

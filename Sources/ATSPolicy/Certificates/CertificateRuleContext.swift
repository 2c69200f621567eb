#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

/// What every certificate rule looks at: the served chain, the anchor that verified it, the
/// rule set, and the injected time of judgement.
public struct CertificateRuleContext: Sendable {
    /// As served, leaf first.
    public var chain: [CertificateFacts]
    /// .system = public root, .user = user-installed root, nil = not verified.
    public var anchor: AnchorSource?
    public var date: Date
    public var rules: CertificateRuleSet

    public init(chain: [CertificateFacts], anchor: AnchorSource?, date: Date, rules: CertificateRuleSet = .documented) {
        self.chain = chain
        self.anchor = anchor
        self.date = date
        self.rules = rules
    }

    public var leaf: CertificateFacts? { chain.first }

    /// Whether `index` is the root's place: the last certificate, self-issued, not the leaf.
    public func isSelfIssuedRoot(_ index: Int) -> Bool {
        index > 0 && index == chain.count - 1 && chain[index].isSelfIssued
    }

    /// "certificate 1 (CN=R3, O=Let's Encrypt)", the subject escaped: it is network text.
    public func name(_ index: Int) -> String {
        let role = index == 0 ? "leaf" : (isSelfIssuedRoot(index) ? "root" : "CA")
        return "certificate \(index) [\(role)] (\(UntrustedText.escape(chain[index].subject, limit: 200)))"
    }

    func violation(_ rule: String, _ index: Int, _ what: String) -> CertificateRuleViolation {
        CertificateRuleViolation(rule: rule, certificateIndex: index, detail: "\(name(index)): \(what) [\(rule)]")
    }
}

/// "2020-09-01": the day of a rule date, for messages.
func dayString(_ date: Date) -> String {
    let days = Int((date.timeIntervalSince1970 / 86_400).rounded(.down))
    // civil_from_days (Hinnant), the inverse of UTCDay.daysSinceEpoch.
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let mp = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
    return "\(year)-\(two(month))-\(two(day))"
}

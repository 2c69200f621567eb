import TLSFacts

/// Maximum leaf lifetimes: 825 days for leaves issued on or after 2019-07-01 whatever the
/// anchor (HT210176), 398 days for leaves chaining to a public root issued on or after
/// 2020-09-01 (HT211025). User-installed roots are exempt from 398 days only; a leaf that is
/// itself the user's anchor is exempt from both (SecPolicyServer.c SecPolicyCheckValidityPeriodMaximums).
package struct LifetimeRules: CertificateRule {
    package static let ids: [CertificateRuleID] = [.validity825, .validity398]

    package init() {}

    package func violations(_ context: CertificateRuleContext) -> [CertificateRuleViolation] {
        guard let leaf = context.leaf, !context.leafIsUserAnchor else { return [] }
        let rules = context.rules
        let lifetime = CertificateLifetime(leaf)
        var found: [CertificateRuleViolation] = []
        if leaf.notBefore >= rules.serverAuthAndLifetimeFrom,
           lifetime.exceeds(days: rules.maximumLifetimeDays, counting: rules.lifetimeCounting,
                            slipSeconds: rules.maximumLifetimeSlipSeconds) {
            found.append(context.violation(CertificateRuleID.validity825, 0,
                "valid for \(lifetime.days) days; at most \(rules.maximumLifetimeDays) for certificates issued on or after \(dayString(rules.serverAuthAndLifetimeFrom))"))
        }
        if context.anchor == .system, leaf.notBefore >= rules.publicLifetimeFrom,
           lifetime.exceeds(days: rules.publicMaximumLifetimeDays, counting: rules.lifetimeCounting) {
            found.append(context.violation(CertificateRuleID.validity398, 0,
                "valid for \(lifetime.days) days; at most \(rules.publicMaximumLifetimeDays) for certificates from a public root issued on or after \(dayString(rules.publicLifetimeFrom))"))
        }
        return found
    }
}

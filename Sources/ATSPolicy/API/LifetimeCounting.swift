#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

/// How a certificate's lifetime is compared with a maximum. Apple's published rule and Apple's
/// Security sources differ by one second at the boundary (docs/certificates.md), so both are here.
public enum LifetimeCounting: String, Hashable, Sendable, Codable {
    /// Apple's published rule (support articles HT211025 and 103214, after RFC 5280 4.1.2.5):
    /// notBefore through notAfter inclusive, a day is 86,400 s, any remainder is one more day.
    /// `days = ceil((notAfter - notBefore + 1 s) / 86,400 s)`; the limit fails when `days > max`.
    case inclusiveDays
    /// Apple's Security sources (SecPolicyServer.c, SecPolicyCheckSystemTrustValidityPeriodMaximums):
    /// fails when `notAfter - notBefore > max * 86,400 s + slip`, the slip being one hour for 825 days
    /// and none for 398 days.
    case elapsedSeconds
}

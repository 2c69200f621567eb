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

/// A certificate's validity period, measured Apple's way.
public struct CertificateLifetime: Hashable, Sendable {
    public let notBefore: Date
    public let notAfter: Date

    public init(notBefore: Date, notAfter: Date) {
        self.notBefore = notBefore
        self.notAfter = notAfter
    }

    public init(_ certificate: CertificateFacts) {
        self.init(notBefore: certificate.notBefore, notAfter: certificate.notAfter)
    }

    /// notAfter - notBefore, in whole seconds (X.509 times carry no fractions).
    public var elapsedSeconds: Int64 {
        Int64((notAfter.timeIntervalSince(notBefore)).rounded())
    }

    /// Seconds from notBefore through notAfter, both included: `elapsedSeconds + 1`.
    public var inclusiveSeconds: Int64 { max(0, elapsedSeconds + 1) }

    /// Apple's day count: `ceil(inclusiveSeconds / 86,400)`.
    public var days: Int {
        Int((inclusiveSeconds + 86_399) / 86_400)
    }

    /// Whether the lifetime is longer than `limit` days under `counting`.
    public func exceeds(days limit: Int, counting: LifetimeCounting, slipSeconds: Int64 = 0) -> Bool {
        switch counting {
        case .inclusiveDays: days > limit
        case .elapsedSeconds: elapsedSeconds > Int64(limit) * 86_400 + slipSeconds
        }
    }
}

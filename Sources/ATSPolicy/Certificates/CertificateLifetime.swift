#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

/// A certificate's validity period, measured Apple's way.
package struct CertificateLifetime: Hashable, Sendable {
    package let notBefore: Date
    package let notAfter: Date

    package init(notBefore: Date, notAfter: Date) {
        self.notBefore = notBefore
        self.notAfter = notAfter
    }

    package init(_ certificate: CertificateFacts) {
        self.init(notBefore: certificate.notBefore, notAfter: certificate.notAfter)
    }

    /// notAfter - notBefore, in whole seconds (X.509 times carry no fractions).
    package var elapsedSeconds: Int64 {
        Int64((notAfter.timeIntervalSince(notBefore)).rounded())
    }

    /// Seconds from notBefore through notAfter, both included: `elapsedSeconds + 1`.
    package var inclusiveSeconds: Int64 { max(0, elapsedSeconds + 1) }

    /// Apple's day count: `ceil(inclusiveSeconds / 86,400)`.
    package var days: Int {
        Int((inclusiveSeconds + 86_399) / 86_400)
    }

    /// Whether the lifetime is longer than `limit` days under `counting`.
    package func exceeds(days limit: Int, counting: LifetimeCounting, slipSeconds: Int64 = 0) -> Bool {
        switch counting {
        case .inclusiveDays: days > limit
        case .elapsedSeconds: elapsedSeconds > Int64(limit) * 86_400 + slipSeconds
        }
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The thresholds and dates of Apple's certificate rules, as one value, so that a different
/// reading (Apple's published rules or Apple's Security sources) is data, not `if`s.
public struct CertificateRuleSet: Hashable, Sendable {
    /// How lifetimes are compared with 825 and 398 days.
    public var lifetimeCounting: LifetimeCounting
    /// Leaves with notBefore on or after this day need serverAuth EKU and at most `maximumLifetimeDays`.
    public var serverAuthAndLifetimeFrom: Date
    public var maximumLifetimeDays: Int
    /// Slip allowed on 825 days under `.elapsedSeconds` (Apple's sources: one hour).
    public var maximumLifetimeSlipSeconds: Int64
    /// Leaves chaining to a public root with notBefore on or after this day: at most `publicMaximumLifetimeDays`.
    public var publicLifetimeFrom: Date
    public var publicMaximumLifetimeDays: Int
    /// RSA keys in the leaf and issuing CAs: at least this many bits, compared as `keySizeCounting` says.
    public var minimumRSABits: Int
    /// How key sizes are compared with the minimum: in whole bytes, as Apple's code does
    /// (SecCertificate.c SecCertificateIsAtLeastMinKeySize: size >= (minBits + 7) / 8, so a
    /// 2047-bit modulus, 256 bytes, passes), or in bits, as HT210176 reads.
    public var keySizeCounting: KeySizeCounting
    /// The largest RSA modulus Apple parses (SecRSAKey.c kMaximumRSAKeyBits, 1024 * 8).
    public var maximumRSABits: Int
    /// Whose leaves need id-kp-serverAuth (see `LeafEKUScope`).
    public var leafEKUScope: LeafEKUScope
    /// CT is required of leaves issued on or after this day (Apple's sources: 2018-10-16 00:00 UTC).
    public var certificateTransparencyFrom: Date
    /// Leaves with notBefore on or after this day use the current embedded-SCT table (180/398 days).
    public var currentSCTTableFrom: Date

    /// Apple's published rules (HT210176, HT211025, the CT policy 103214): the default. Where
    /// devices demonstrably follow the code instead (key sizes in bytes, the leaf EKU by anchor),
    /// this set follows the code too; `.bits` and `.everyAnchor` give the published reading.
    public static let documented = CertificateRuleSet(
        lifetimeCounting: .inclusiveDays,
        serverAuthAndLifetimeFrom: UTCDay.date(2019, 7, 1),
        maximumLifetimeDays: 825,
        maximumLifetimeSlipSeconds: 0,
        publicLifetimeFrom: UTCDay.date(2020, 9, 1),
        publicMaximumLifetimeDays: 398,
        minimumRSABits: 2048,
        keySizeCounting: .bytes,
        maximumRSABits: 8192,
        leafEKUScope: .securityFramework,
        certificateTransparencyFrom: UTCDay.date(2018, 10, 16),
        currentSCTTableFrom: UTCDay.date(2021, 4, 21)
    )

    /// The same rules with lifetimes counted as Apple's Security sources do (elapsed seconds,
    /// one hour of slip on 825 days). Only the counting differs; see docs/certificates.md.
    public static let securityFramework: CertificateRuleSet = {
        var rules = CertificateRuleSet.documented
        rules.lifetimeCounting = .elapsedSeconds
        rules.maximumLifetimeSlipSeconds = 3_600
        return rules
    }()
}

/// How a key's size is compared with a minimum given in bits.
public enum KeySizeCounting: String, Hashable, Sendable {
    /// Whole bytes, as Apple's code compares them: passes when ceil(bits / 8) >= ceil(minimum / 8).
    case bytes
    /// Bits, as the published rule reads.
    case bits

    public func meets(bits: Int, minimum: Int) -> Bool {
        switch self {
        case .bytes: (bits + 7) / 8 >= (minimum + 7) / 8
        case .bits: bits >= minimum
        }
    }
}

/// Which chains need the strict leaf check (an EKU extension containing id-kp-serverAuth).
public enum LeafEKUScope: String, Hashable, Sendable {
    /// Apple's code (SecPolicyServer.c SecPolicyCheckServerAuthEKU): every chain to a system root,
    /// whatever its date; user-installed roots are skipped (only the looser SSL check applies:
    /// an EKU, when present, must allow serverAuth, anyEKU or an SGC usage); other chains from
    /// 2019-07-01.
    case securityFramework
    /// HT210176 read literally: every chain, for leaves issued on or after 2019-07-01.
    case everyAnchor
}

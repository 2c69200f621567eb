/// The stable identifier of one of Apple's certificate rules (`CertificateRuleViolation.rule`).
/// They appear in JSON output as plain strings: never rename one.
public struct CertificateRuleID: RawRepresentable, Hashable, Sendable, Codable, Comparable,
                                 ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }

    public init(from decoder: Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }

    public static func < (a: CertificateRuleID, b: CertificateRuleID) -> Bool { a.rawValue < b.rawValue }

    /// The leaf has no subjectAltName entry at all (the CommonName is ignored since iOS 13).
    public static let subjectAltNameMissing: CertificateRuleID = "san-missing"
    /// Leaf issued on or after 2019-07-01 without an extendedKeyUsage containing id-kp-serverAuth.
    public static let serverAuthEKU: CertificateRuleID = "eku-server-auth"
    /// Leaf issued on or after 2019-07-01 valid for more than 825 days.
    public static let validity825: CertificateRuleID = "validity-825"
    /// Leaf chaining to a public root, issued on or after 2020-09-01, valid for more than 398 days.
    public static let validity398: CertificateRuleID = "validity-398"
    /// An RSA key under 2048 bits in the leaf or an issuing CA.
    public static let rsaKeySize: CertificateRuleID = "rsa-key-size"
    /// A SHA-1 signature on a certificate other than the root's self-signature.
    public static let sha1Signature: CertificateRuleID = "sha1-signature"
    /// An MD5 signature on a certificate other than the root's self-signature.
    public static let md5Signature: CertificateRuleID = "md5-signature"
    /// Certificate Transparency required and not met (CTPolicyResult says why).
    public static let certificateTransparency: CertificateRuleID = "certificate-transparency"

    /// A CA certificate between leaf and anchor whose extendedKeyUsage allows neither
    /// serverAuth nor anyExtendedKeyUsage (SecPolicyServer.c, SecPolicyCheckExtendedKeyUsage).
    public static let caServerAuthEKU: CertificateRuleID = "eku-ca-server-auth"
    /// An RSA modulus larger than Apple parses (8192 bits, SecRSAKey.c kMaximumRSAKeyBits).
    public static let rsaKeyTooLarge: CertificateRuleID = "rsa-key-too-large"
    /// A key Apple cannot use: an SPKI SecKey.m does not parse (RSA-PSS, DSA, ...), or a leaf
    /// key no signature scheme Apple offers can prove (Ed25519, Ed448).
    public static let keyTypeUnsupported: CertificateRuleID = "key-type-unsupported"
    /// The chain ends at a root Apple distrusts for certificates issued after a date
    /// (support article 121668), or at a WoSign/StartCom root (notBefore >= 2016-12-01).
    public static let distrustedRoot: CertificateRuleID = "distrusted-root"
    /// An EC key under 256 bits (P-192, P-224) in any certificate of the chain (SecPolicy.c
    /// SecPolicyAddStrongKeySizeOptions; SecPolicyServer.c SecPolicyCheckKeySize).
    public static let ecKeySize: CertificateRuleID = "ec-key-size"
    /// A stapled OCSP response says the leaf is revoked (SecRevocationServer.c).
    public static let ocspRevoked: CertificateRuleID = "ocsp-revoked"

    /// The renewal check's (docs/forecast.md), not a registered rule: a CA certificate of the path
    /// (an issuing CA or the anchor) outside its validity at the renewal's instant, so a leaf it
    /// issues then is not trusted (SecCertificate.c SecCertificateIsValid, every certificate of
    /// the path; OpenSSL's time check as `TrustEvaluator` reads it).
    public static let caValidity: CertificateRuleID = "ca-validity"

    /// Every id a registered rule can report, in registration order.
    public static var all: [CertificateRuleID] { AppleCertificatePolicy.rules.flatMap { type(of: $0).ids } }
}

/// The stable identifiers of Apple's certificate rules (`CertificateRuleViolation.rule`).
/// They appear in JSON output: never rename one.
public enum CertificateRuleID {
    /// The leaf has no subjectAltName entry at all (the CommonName is ignored since iOS 13).
    public static let subjectAltNameMissing = "san-missing"
    /// Leaf issued on or after 2019-07-01 without an extendedKeyUsage containing id-kp-serverAuth.
    public static let serverAuthEKU = "eku-server-auth"
    /// Leaf issued on or after 2019-07-01 valid for more than 825 days.
    public static let validity825 = "validity-825"
    /// Leaf chaining to a public root, issued on or after 2020-09-01, valid for more than 398 days.
    public static let validity398 = "validity-398"
    /// An RSA key under 2048 bits in the leaf or an issuing CA.
    public static let rsaKeySize = "rsa-key-size"
    /// A SHA-1 signature on a certificate other than the root's self-signature.
    public static let sha1Signature = "sha1-signature"
    /// An MD5 signature on a certificate other than the root's self-signature.
    public static let md5Signature = "md5-signature"
    /// Certificate Transparency required and not met (CTPolicyResult says why).
    public static let certificateTransparency = "certificate-transparency"

    /// A CA certificate between leaf and anchor whose extendedKeyUsage allows neither
    /// serverAuth nor anyExtendedKeyUsage (SecPolicyServer.c, SecPolicyCheckExtendedKeyUsage).
    public static let caServerAuthEKU = "eku-ca-server-auth"
    /// An RSA modulus larger than Apple parses (8192 bits, SecRSAKey.c kMaximumRSAKeyBits).
    public static let rsaKeyTooLarge = "rsa-key-too-large"
    /// A key Apple cannot use: an SPKI SecKey.m does not parse (RSA-PSS, DSA, ...), or a leaf
    /// key no signature scheme Apple offers can prove (Ed25519, Ed448).
    public static let keyTypeUnsupported = "key-type-unsupported"
    /// The chain ends at a root Apple distrusts for certificates issued after a date
    /// (support article 121668), or at a WoSign/StartCom root (notBefore >= 2016-12-01).
    public static let distrustedRoot = "distrusted-root"
    /// A stapled OCSP response says the leaf is revoked (SecRevocationServer.c).
    public static let ocspRevoked = "ocsp-revoked"

    public static let all = [subjectAltNameMissing, serverAuthEKU, validity825, validity398,
                             rsaKeySize, sha1Signature, md5Signature, certificateTransparency,
                             caServerAuthEKU, rsaKeyTooLarge, keyTypeUnsupported, distrustedRoot, ocspRevoked]
}

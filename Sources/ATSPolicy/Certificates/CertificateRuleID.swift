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

    public static let all = [subjectAltNameMissing, serverAuthEKU, validity825, validity398,
                             rsaKeySize, sha1Signature, md5Signature, certificateTransparency]
}

import Foundation

/// What a test certificate should say. Defaults: CN and SAN "localhost" plus IP 127.0.0.1 and ::1,
/// an EC P-256 key, SHA-256, valid from a day ago for 90 days, EKU serverAuth, not a CA.
public struct CertificateSpec: Sendable {
    /// OID of id-kp-serverAuth.
    public static let serverAuth = "1.3.6.1.5.5.7.3.1"
    /// OID of id-kp-clientAuth.
    public static let clientAuth = "1.3.6.1.5.5.7.3.2"

    /// Subject CN; empty leaves it out.
    public var commonName: String
    public var dnsNames: [String]
    public var ipAddresses: [String]
    public var key: TestKey
    public var signatureHash: TestSignatureHash
    public var notBefore: Date
    public var notAfter: Date
    /// EKU OIDs (dotted or OpenSSL short names); nil leaves the extension out.
    public var extendedKeyUsage: [String]?
    /// Embedded SCT list extension (OID 1.3.6.1.4.1.11129.2.4.2), with dummy signatures.
    public var embeddedSCTs: [TestSCT]
    /// Authority Information Access caIssuers URIs (where the issuer can be fetched).
    public var caIssuersURLs: [String]
    /// The TLS feature extension with status_request (RFC 7633 "must-staple").
    public var mustStaple: Bool

    public init(commonName: String = "localhost",
                dnsNames: [String] = ["localhost"],
                ipAddresses: [String] = ["127.0.0.1", "::1"],
                key: TestKey = .ec(curve: .p256),
                signatureHash: TestSignatureHash = .sha256,
                notBefore: Date = Date(timeIntervalSinceNow: -86_400),
                notAfter: Date = Date(timeIntervalSinceNow: 90 * 86_400),
                extendedKeyUsage: [String]? = [CertificateSpec.serverAuth],
                embeddedSCTs: [TestSCT] = [], caIssuersURLs: [String] = [], mustStaple: Bool = false) {
        self.caIssuersURLs = caIssuersURLs
        self.mustStaple = mustStaple
        self.commonName = commonName
        self.dnsNames = dnsNames
        self.ipAddresses = ipAddresses
        self.key = key
        self.signatureHash = signatureHash
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.extendedKeyUsage = extendedKeyUsage
        self.embeddedSCTs = embeddedSCTs
    }
}

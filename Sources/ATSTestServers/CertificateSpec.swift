import Foundation

/// What a test certificate should say. Defaults: CN and SAN "localhost" plus IP 127.0.0.1 and ::1,
/// an EC P-256 key, SHA-256, valid from a day ago for 90 days, EKU serverAuth, not a CA.
package struct CertificateSpec: Sendable {
    /// OID of id-kp-serverAuth.
    package static let serverAuth = "1.3.6.1.5.5.7.3.1"
    /// OID of id-kp-clientAuth.
    package static let clientAuth = "1.3.6.1.5.5.7.3.2"

    /// Subject CN; empty leaves it out.
    package var commonName: String
    package var dnsNames: [String]
    package var ipAddresses: [String]
    package var key: TestKey
    package var signatureHash: TestSignatureHash
    package var notBefore: Date
    package var notAfter: Date
    /// EKU OIDs (dotted or OpenSSL short names); nil leaves the extension out.
    package var extendedKeyUsage: [String]?
    /// Embedded SCT list extension (OID 1.3.6.1.4.1.11129.2.4.2), with dummy signatures.
    package var embeddedSCTs: [TestSCT]
    /// Authority Information Access caIssuers URIs (where the issuer can be fetched).
    package var caIssuersURLs: [String]
    /// The TLS feature extension with status_request (RFC 7633 "must-staple").
    package var mustStaple: Bool

    package init(commonName: String = "localhost",
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

import Foundation
import TLSFacts
@testable import ATSPolicy

/// Synthetic certificates with exact dates, for the certificate-rule tests. No network.
enum CertificateFixture {
    static let day: TimeInterval = 86_400

    /// Midnight UTC, plus an optional number of seconds.
    static func date(_ year: Int, _ month: Int, _ dayOfMonth: Int, plus seconds: TimeInterval = 0) -> Date {
        UTCDay.date(year, month, dayOfMonth).addingTimeInterval(seconds)
    }

    /// notAfter for a certificate of exactly `days` Apple days: the last second of the last day.
    static func notAfter(_ notBefore: Date, days: Int) -> Date {
        notBefore.addingTimeInterval(TimeInterval(days) * day - 1)
    }

    static func leaf(notBefore: Date = date(2026, 1, 10), days: Int = 90, notAfter: Date? = nil,
                     extendedKeyUsage: [String]? = [CertificateFacts.serverAuthOID],
                     dnsNames: [String] = ["www.example.com"], ipAddresses: [String] = [],
                     key: PublicKeyFacts = PublicKeyFacts(algorithm: .ec, bits: 256, curve: "prime256v1"),
                     hash: SignatureHash = .sha256, subject: String = "CN=www.example.com",
                     spki: String = "LEAF-SPKI=", embeddedSCTs: [SignedCertificateTimestamp] = []) -> CertificateFacts {
        CertificateFacts(subject: subject, issuer: "CN=Example Issuing CA", serialNumber: "01",
                         dnsNames: dnsNames, ipAddresses: ipAddresses,
                         notBefore: notBefore, notAfter: notAfter ?? Self.notAfter(notBefore, days: days),
                         publicKey: key, signatureAlgorithm: hash == .sha1 ? "sha1WithRSAEncryption" : "ecdsa-with-SHA256",
                         signatureHash: hash, sha256Fingerprint: "AA:BB", spkiSHA256Base64: spki,
                         isCA: false, isSelfIssued: false, extendedKeyUsage: extendedKeyUsage, embeddedSCTs: embeddedSCTs)
    }

    static func ca(subject: String = "CN=Example Issuing CA", selfIssued: Bool = false,
                   key: PublicKeyFacts = PublicKeyFacts(algorithm: .rsa, bits: 2048),
                   hash: SignatureHash = .sha256, spki: String = "CA-SPKI=") -> CertificateFacts {
        CertificateFacts(subject: subject, issuer: selfIssued ? subject : "CN=Example Root", serialNumber: "02",
                         dnsNames: [], ipAddresses: [],
                         notBefore: date(2015, 1, 1), notAfter: date(2035, 1, 1),
                         publicKey: key, signatureAlgorithm: hash == .sha1 ? "sha1WithRSAEncryption" : "sha256WithRSAEncryption",
                         signatureHash: hash, sha256Fingerprint: "CC:DD", spkiSHA256Base64: spki,
                         isCA: true, isSelfIssued: selfIssued, extendedKeyUsage: nil)
    }

    static func root(key: PublicKeyFacts = PublicKeyFacts(algorithm: .rsa, bits: 4096), hash: SignatureHash = .sha256,
                     spki: String = "ROOT-SPKI=") -> CertificateFacts {
        ca(subject: "CN=Example Root", selfIssued: true, key: key, hash: hash, spki: spki)
    }

    /// leaf, intermediate, root.
    static func chain(_ leaf: CertificateFacts = leaf(), intermediate: CertificateFacts = ca(),
                      root: CertificateFacts = root()) -> [CertificateFacts] {
        [leaf, intermediate, root]
    }

    static func rules(_ chain: [CertificateFacts], anchor: AnchorSource? = .system,
                      delivered: [SignedCertificateTimestamp] = [], at date: Date = date(2026, 3, 1),
                      requireCT: Bool = false, rules: CertificateRuleSet = .documented) -> [CertificateRuleID] {
        AppleCertificatePolicy.violations(chain: chain, anchor: anchor, deliveredSCTs: delivered, at: date,
                                          requireCertificateTransparency: requireCT, rules: rules).map(\.rule)
    }

    /// The rules other than CT, for tests about one rule on a chain without SCTs.
    static func nonCTRules(_ chain: [CertificateFacts], anchor: AnchorSource? = .system,
                           rules: CertificateRuleSet = .documented) -> [CertificateRuleID] {
        Self.rules(chain, anchor: anchor, rules: rules).filter { $0 != CertificateRuleID.certificateTransparency }
    }

    // Log IDs read from Apple's list (CTLogs.swift), used as known logs.
    enum Log {
        static let argon2026h1 = "DleUvPOuqT4zGyyZB7P3kN+bwj1xMiXdIaklrGHFTiE="   // Google, usable
        static let xenon2026h1 = "lpdkv1VYl633Q4doNwhCd+nwOtX2pPM2bkakPw/KqcY="   // Google, usable
        static let nimbus2026 = "yzj3FYl8hKFEX1vB3fvJbvKaWc1HCmkFhbDLFMMUWOc="    // Cloudflare, usable
        static let wyvern2026h1 = "ZBHEbKQS7KeJHKICLgC8q08oB9QeNSer6v7VA8l9zfA="  // DigiCert, usable
        static let argon2025h2 = "EvFONL1TckyEBhnDjz96E/jntWKHiJxtMAWE6+WGJjo="   // Google, rejected 2026-01-29
        static let raio2026h1 = "5bvNwMctaSvZWYo2AgQ86FTsb2D4AGZ4WWOIK3w4JDg="    // Cloudflare, static-ct-api, usable
        static let tuscolo2026h1 = "cX6V88I4im2x44RJPTHhWqliCHYtQgDgBQzQZ7WmYeI=" // Geomys, static-ct-api, usable
        static let mammoth2026h1 = "JS+Uwisp6W6fQRpyBytpXFtS/5epDSVAu/zcUexN7gs=" // Sectigo, readonly 2025-09-18
    }

    static func sct(_ logID: String, _ source: SignedCertificateTimestamp.Source = .embedded,
                    at timestamp: Date = date(2026, 1, 10)) -> SignedCertificateTimestamp {
        SignedCertificateTimestamp(source: source, logID: logID, timestamp: timestamp)
    }
}

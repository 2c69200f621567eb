#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Everything one successful handshake showed. Values only: no OpenSSL types.
public struct Observation: Hashable, Sendable, Codable {
    /// The address actually connected to ("127.0.0.1", "::1").
    public var peerAddress: String
    public var port: Int
    public var serverName: String?
    public var protocolVersion: TLSVersion
    public var cipherSuite: CipherSuite
    /// OpenSSL's name for the suite ("ECDHE-RSA-AES128-GCM-SHA256").
    public var openSSLCipherName: String
    /// "X25519", "secp256r1", "ffdhe2048", "DH 2048", or nil for static RSA key exchange.
    public var keyExchangeGroup: String?
    /// The signature scheme the server signed its key exchange (TLS 1.2) or CertificateVerify
    /// (TLS 1.3) with; nil for static RSA key exchange or when OpenSSL could not tell.
    public var serverSignatureScheme: SignatureScheme?
    /// The chain as served, leaf first.
    public var chain: [CertificateFacts]
    public var alpn: String?
    /// Connect (TCP) time and TLS handshake time, in milliseconds.
    public var connectMilliseconds: Double
    public var handshakeMilliseconds: Double
    public var trust: TrustEvaluation
    /// Signed certificate timestamps from the TLS extension and a stapled OCSP response.
    public var deliveredSCTs: [SignedCertificateTimestamp]
    public var ocspStaple: OCSPStaple?
    /// The HTTP response to a GET after the handshake, when one was asked for.
    public var http: HTTPExchange?

    public var leaf: CertificateFacts? { chain.first }

    public init(peerAddress: String, port: Int, serverName: String?, protocolVersion: TLSVersion,
                cipherSuite: CipherSuite, openSSLCipherName: String, keyExchangeGroup: String?,
                chain: [CertificateFacts], alpn: String?, connectMilliseconds: Double,
                handshakeMilliseconds: Double, trust: TrustEvaluation,
                deliveredSCTs: [SignedCertificateTimestamp] = [], ocspStaple: OCSPStaple? = nil,
                http: HTTPExchange? = nil, serverSignatureScheme: SignatureScheme? = nil) {
        self.peerAddress = peerAddress
        self.port = port
        self.serverName = serverName
        self.protocolVersion = protocolVersion
        self.cipherSuite = cipherSuite
        self.openSSLCipherName = openSSLCipherName
        self.keyExchangeGroup = keyExchangeGroup
        self.chain = chain
        self.alpn = alpn
        self.connectMilliseconds = connectMilliseconds
        self.handshakeMilliseconds = handshakeMilliseconds
        self.trust = trust
        self.deliveredSCTs = deliveredSCTs
        self.ocspStaple = ocspStaple
        self.http = http
        self.serverSignatureScheme = serverSignatureScheme
    }
}

/// A public key's algorithm and size.
public struct PublicKeyFacts: Hashable, Sendable, Codable, CustomStringConvertible {
    /// `rsaPSS`: an RSASSA-PSS SubjectPublicKeyInfo (OID 1.2.840.113549.1.1.10), not rsaEncryption.
    public enum Algorithm: String, Hashable, Sendable, Codable { case rsa = "RSA", rsaPSS = "RSA-PSS", ec = "EC", ed25519 = "Ed25519", ed448 = "Ed448", dsa = "DSA", other }
    public var algorithm: Algorithm
    /// Key size in bits (RSA modulus, EC field size).
    public var bits: Int
    /// The named curve for EC keys ("prime256v1", "secp384r1").
    public var curve: String?

    public init(algorithm: Algorithm, bits: Int, curve: String? = nil) {
        self.algorithm = algorithm
        self.bits = bits
        self.curve = curve
    }

    public var description: String {
        "\(algorithm.rawValue) \(bits) bits" + (curve.map { " (\($0))" } ?? "")
    }
}

/// The hash inside a certificate's signature algorithm.
public enum SignatureHash: String, Hashable, Sendable, Codable, Comparable {
    case md5, sha1, sha224, sha256, sha384, sha512
    /// Signature schemes with no separate hash (Ed25519, Ed448): treated as strong.
    case intrinsic
    case unknown

    /// SHA-256 or stronger.
    public var isSHA256OrStronger: Bool { [.sha256, .sha384, .sha512, .intrinsic].contains(self) }
    static let order: [SignatureHash] = [.unknown, .md5, .sha1, .sha224, .sha256, .sha384, .sha512, .intrinsic]
    public static func < (lhs: SignatureHash, rhs: SignatureHash) -> Bool {
        order.firstIndex(of: lhs)! < order.firstIndex(of: rhs)!
    }
}

/// One certificate as served. Names are as the certificate spells them (untrusted text).
public struct CertificateFacts: Hashable, Sendable, Codable {
    public var subject: String
    public var issuer: String
    public var serialNumber: String
    public var dnsNames: [String]
    public var ipAddresses: [String]
    public var notBefore: Date
    public var notAfter: Date
    public var publicKey: PublicKeyFacts
    /// "sha256WithRSAEncryption", "ecdsa-with-SHA384".
    public var signatureAlgorithm: String
    public var signatureHash: SignatureHash
    /// Hex SHA-256 of the DER certificate, upper case, colon separated.
    public var sha256Fingerprint: String
    /// Base64 SHA-256 of the DER SubjectPublicKeyInfo (Apple's SPKI-SHA256-BASE64 pin).
    public var spkiSHA256Base64: String
    public var isCA: Bool
    public var isSelfIssued: Bool
    /// Extended key usage OIDs in dotted form; nil when the extension is absent.
    public var extendedKeyUsage: [String]?
    /// SCTs embedded in the certificate (the SCT-list extension).
    public var embeddedSCTs: [SignedCertificateTimestamp]

    public init(subject: String, issuer: String, serialNumber: String, dnsNames: [String], ipAddresses: [String],
                notBefore: Date, notAfter: Date, publicKey: PublicKeyFacts, signatureAlgorithm: String,
                signatureHash: SignatureHash, sha256Fingerprint: String, spkiSHA256Base64: String,
                isCA: Bool, isSelfIssued: Bool, extendedKeyUsage: [String]?, embeddedSCTs: [SignedCertificateTimestamp] = []) {
        self.subject = subject
        self.issuer = issuer
        self.serialNumber = serialNumber
        self.dnsNames = dnsNames
        self.ipAddresses = ipAddresses
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.publicKey = publicKey
        self.signatureAlgorithm = signatureAlgorithm
        self.signatureHash = signatureHash
        self.sha256Fingerprint = sha256Fingerprint
        self.spkiSHA256Base64 = spkiSHA256Base64
        self.isCA = isCA
        self.isSelfIssued = isSelfIssued
        self.extendedKeyUsage = extendedKeyUsage
        self.embeddedSCTs = embeddedSCTs
    }

    public static let serverAuthOID = "1.3.6.1.5.5.7.3.1"
    public static let anyExtendedKeyUsageOID = "2.5.29.37.0"
}

/// A signed certificate timestamp and where it came from.
public struct SignedCertificateTimestamp: Hashable, Sendable, Codable {
    public enum Source: String, Hashable, Sendable, Codable { case embedded, tlsExtension, ocspStaple }
    /// What checking the log's signature over the certificate found (RFC 6962 section 3.2).
    public enum SignatureCheck: String, Hashable, Sendable, Codable {
        /// The log's key verifies the signature.
        case valid
        /// It does not: Apple does not count the SCT.
        case invalid
        /// No key for this log ID was known to the probe.
        case unknownLog
        /// An embedded SCT, but the leaf's issuer was neither served nor in the trust store.
        case noIssuer
        /// Not checked (SCTs built by hand, or by a caller that does not verify).
        case notChecked
    }

    public var source: Source
    /// Base64 of the 32-byte log ID.
    public var logID: String
    public var timestamp: Date
    public var version: Int
    public var signature: SignatureCheck

    public init(source: Source, logID: String, timestamp: Date, version: Int = 0, signature: SignatureCheck = .notChecked) {
        self.source = source
        self.logID = logID
        self.timestamp = timestamp
        self.version = version
        self.signature = signature
    }
}

/// A stapled OCSP response, as served (never fetched).
public struct OCSPStaple: Hashable, Sendable, Codable {
    /// "successful", "malformedRequest", ...: the response status.
    public var responseStatus: String
    /// "good", "revoked", "unknown" for the leaf, when the response names it.
    public var certificateStatus: String?
    public var thisUpdate: Date?
    public var nextUpdate: Date?

    public init(responseStatus: String, certificateStatus: String?, thisUpdate: Date?, nextUpdate: Date?) {
        self.responseStatus = responseStatus
        self.certificateStatus = certificateStatus
        self.thisUpdate = thisUpdate
        self.nextUpdate = nextUpdate
    }
}

/// The response head to the GET that makes a test a "load".
public struct HTTPExchange: Hashable, Sendable, Codable {
    public var statusCode: Int?
    public var reason: String?
    /// The Location header, as sent (untrusted), for 3xx responses.
    public var location: String?
    public var server: String?
    /// Set when the request or response failed after the handshake ("connection closed", "malformed status line").
    public var failure: String?

    public init(statusCode: Int?, reason: String? = nil, location: String? = nil, server: String? = nil, failure: String? = nil) {
        self.statusCode = statusCode
        self.reason = reason
        self.location = location
        self.server = server
        self.failure = failure
    }
}

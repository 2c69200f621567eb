import TLSFacts

/// What to tell a server's operator about its chain beyond the verdict.
public enum TrustAdvice {
    /// When the chain verified only because a missing intermediate was fetched by caIssuers:
    /// Apple devices load, clients that do not fetch fail.
    public static func missingIntermediateWarning(_ trust: TrustEvaluation) -> String? {
        guard trust.anchor != nil, let fetched = trust.fetchedIssuers?.filter({ $0.failure == nil && !$0.certificates.isEmpty }),
              let first = fetched.first else { return nil }
        let names = fetched.flatMap(\.certificates).map { "'\(UntrustedText.escape($0.subject, limit: 200))'" }.joined(separator: ", ")
        return "the server does not send its intermediate \(names); Apple fetched it from \(UntrustedText.escape(first.url, limit: 300)) "
            + "(caIssuers), so Apple devices trust the chain, but clients that do not fetch (Android, curl, Firefox) fail"
    }

    /// The server change that removes the warning.
    public static let missingIntermediateFix = "send the intermediate(s) with the leaf: nginx: ssl_certificate names a file with the leaf "
        + "followed by its intermediates; Apache 2.4.8+: SSLCertificateFile with the leaf then its intermediates (or SSLCertificateChainFile)"
}

/// The codes an Apple client reports for a trust failure: the NSURLError, the SecureTransport
/// status (_kCFStreamErrorCodeKey) and the OSStatus of SecTrustEvaluateWithError, with the
/// OSStatus taken from the policy check that fails (Security's SecPolicyChecks.list).
public struct AppleTrustCodes: Hashable, Sendable, Codable, CustomStringConvertible {
    public var urlError: Int
    public var secureTransport: Int
    public var osStatus: Int
    /// errSec... name of `osStatus`.
    public var osStatusName: String

    public var description: String {
        "NSURLError \(urlError), SecureTransport \(secureTransport), OSStatus \(osStatus) \(osStatusName)"
    }

    static func untrusted(_ secureTransport: Int, _ osStatus: Int, _ name: String) -> AppleTrustCodes {
        AppleTrustCodes(urlError: AppleError.serverCertificateUntrusted, secureTransport: secureTransport, osStatus: osStatus, osStatusName: name)
    }

    public static func codes(for kind: TrustProblem.Kind) -> AppleTrustCodes {
        switch kind {
        case .untrustedRoot, .selfSigned: untrusted(SecureTransportCode.noRootCertificate, -67843, "errSecNotTrusted")
        case .incompleteChain: untrusted(SecureTransportCode.noRootCertificate, -25318, "errSecCreateChainFailed")
        case .expired: untrusted(SecureTransportCode.certificateExpired, -67818, "errSecCertificateExpired")
        case .notYetValid: untrusted(SecureTransportCode.certificateNotYetValid, -67819, "errSecCertificateNotValidYet")
        case .nameMismatch: untrusted(SecureTransportCode.hostNameMismatch, -67602, "errSecHostNameMismatch")
        case .invalidChain: untrusted(SecureTransportCode.certificateChainInvalid, -67843, "errSecNotTrusted")
        }
    }

    public static func codes(forRule rule: String) -> AppleTrustCodes {
        let invalid = SecureTransportCode.certificateChainInvalid
        switch rule {
        case CertificateRuleID.subjectAltNameMissing: return untrusted(SecureTransportCode.hostNameMismatch, -67602, "errSecHostNameMismatch")
        case CertificateRuleID.serverAuthEKU, CertificateRuleID.caServerAuthEKU: return untrusted(invalid, -67609, "errSecInvalidExtendedKeyUsage")
        case CertificateRuleID.validity825, CertificateRuleID.validity398: return untrusted(invalid, -67901, "errSecCertificateValidityPeriodTooLong")
        case CertificateRuleID.rsaKeySize, CertificateRuleID.rsaKeyTooLarge, CertificateRuleID.keyTypeUnsupported:
            return untrusted(invalid, -67735, "errSecUnsupportedKeySize")
        case CertificateRuleID.sha1Signature, CertificateRuleID.md5Signature: return untrusted(invalid, -67815, "errSecInvalidDigestAlgorithm")
        case CertificateRuleID.distrustedRoot, CertificateRuleID.ocspRevoked: return untrusted(invalid, -67820, "errSecCertificateRevoked")
        default: return untrusted(invalid, -67843, "errSecNotTrusted")  // certificate-transparency (CTRequired), pins
        }
    }
}

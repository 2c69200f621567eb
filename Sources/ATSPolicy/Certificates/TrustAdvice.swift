import TextSupport
import TLSFacts

/// What to tell a server's operator about its chain beyond the verdict.
package enum TrustAdvice {
    /// When the chain verified only because a missing intermediate was fetched by caIssuers:
    /// Apple devices load, clients that do not fetch fail.
    package static func missingIntermediateWarning(_ trust: TrustEvaluation) -> String? {
        guard trust.anchor != nil, let fetched = trust.fetchedIssuers?.filter({ $0.failure == nil && !$0.certificates.isEmpty }),
              let first = fetched.first else { return nil }
        let names = fetched.flatMap(\.certificates).map { "'\(UntrustedText.escape($0.subject, limit: 200))'" }.joined(separator: ", ")
        return "the server does not send its intermediate \(names); Apple fetched it from \(UntrustedText.escape(first.url, limit: 300)) "
            + "(caIssuers), so Apple devices trust the chain, but clients that do not fetch (Android, curl, Firefox) fail"
    }

    /// The server change that removes the warning.
    package static let missingIntermediateFix = "send the intermediate(s) with the leaf: nginx: ssl_certificate names a file with the leaf "
        + "followed by its intermediates; Apache 2.4.8+: SSLCertificateFile with the leaf then its intermediates (or SSLCertificateChainFile)"
}

/// The codes an Apple client reports for a trust failure: the NSURLError, the SecureTransport
/// status (_kCFStreamErrorCodeKey) and the OSStatus of SecTrustEvaluateWithError, with the
/// OSStatus taken from the policy check that fails (Security's SecPolicyChecks.list).
package struct AppleTrustCodes: Hashable, Sendable, Codable, CustomStringConvertible {
    package var urlError: Int
    package var secureTransport: Int
    package var osStatus: Int
    /// errSec... name of `osStatus`.
    package var osStatusName: String

    package var description: String {
        "NSURLError \(urlError), SecureTransport \(secureTransport), OSStatus \(osStatus) \(osStatusName)"
    }

    /// The codes of a trust problem (the table is `AppleErrorCodes`).
    package static func codes(for kind: TrustProblem.Kind) -> AppleTrustCodes {
        AppleErrorCodes.trustCodes(for: kind)
    }

    /// The codes of a certificate rule (the table is `AppleErrorCodes`).
    package static func codes(forRule rule: CertificateRuleID) -> AppleTrustCodes {
        AppleErrorCodes.trustCodes(forRule: rule)
    }
}

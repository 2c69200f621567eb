import TLSFacts

/// The one table from a failure kind to the codes an Apple client reports: the NSURLError
/// code, the SecureTransport status or POSIX/netdb code in `_kCFStreamErrorCodeKey` (with its
/// stream domain), and for trust failures the OSStatus of SecTrustEvaluateWithError. Every
/// verdict's `AppleError` comes from here; a new failure kind or certificate rule adds its
/// codes here and nowhere else.
///
/// Sources: SecureTransport.h (errSSL*), SecBase.h (errSec*), NSURLError.h, Security's
/// SecPolicyChecks.list (which OSStatus each certificate check fails with), and nscurl output
/// (docs/rules.md, "Error codes").
package enum AppleErrorCodes {
    /// The error a load fails with for `kind`. `layer` tells a suite ATS refuses (-9882) from one
    /// the platform does not offer at all (-9824); `alert` is the fatal alert the server sent,
    /// when it sent one (errSSLPeer*); `host` names the server in -1202's description.
    package static func error(for kind: FailureReason.Kind, layer: FailureReason.Layer, alert: TLSAlert? = nil,
                             host: String? = nil) -> AppleError {
        switch kind {
        case .unreachable(let failure), .handshakeFailed(let failure):
            return error(for: failure, alert: alert)
        case .protocolTooOld:
            return .ssl(SecureTransportCode.peerProtocolVersion)
        case .notForwardSecret:
            return .ssl(SecureTransportCode.atsCipherSuiteViolation)
        case .suiteNotAllowed:
            return .ssl(layer == .ats ? SecureTransportCode.atsCipherSuiteViolation : SecureTransportCode.peerHandshakeFailure)
        case .leafKeyTooSmall:
            return .ssl(SecureTransportCode.atsMinimumKeySizeViolation)
        case .leafSignatureHashWeak:
            return .ssl(SecureTransportCode.atsLeafCertificateHashViolation)
        case .trust(let problem):
            let codes = trustCodes(for: problem)
            return .untrusted(codes.secureTransport, host: host ?? "", osStatus: codes.osStatus)
        case .certificateRule(let rule):
            let codes = trustCodes(forRule: rule)
            return .untrusted(codes.secureTransport, host: host ?? "", osStatus: codes.osStatus)
        case .pinMismatch:
            return .untrusted(SecureTransportCode.certificateChainInvalid, host: host ?? "")
        case .cleartextBlocked:
            return AppleError(code: AppleError.appTransportSecurityRequiresSecureConnection)
        case .httpFailure:
            return AppleError(code: AppleError.networkConnectionLost, streamErrorCode: -4, streamErrorDomain: 4)
        case .tooManyRedirects:
            return AppleError(code: AppleError.httpTooManyRedirects)
        }
    }

    /// A handshake or connection that did not complete.
    static func error(for failure: ProbeFailure.Kind, alert: TLSAlert?) -> AppleError {
        switch failure {
        case .nameNotResolved: AppleError(code: AppleError.cannotFindHost, streamErrorCode: 8, streamErrorDomain: 12)
        case .connectionRefused: AppleError(code: AppleError.cannotConnectToHost, streamErrorCode: 61, streamErrorDomain: 1)
        case .networkUnreachable: AppleError(code: AppleError.cannotConnectToHost, streamErrorCode: 51, streamErrorDomain: 1)
        // A load whose name found no answer in time times out like any other (NSURLError.h:
        // NSURLErrorTimedOut, "an asynchronous operation timed out"); CannotFindHost (-1003) is
        // for a name that does not resolve.
        case .connectTimeout, .handshakeTimeout, .nameResolutionTimeout:
            AppleError(code: AppleError.timedOut, streamErrorCode: -2102, streamErrorDomain: 4)
        case .notTLS: .ssl(SecureTransportCode.closedAbort)
        case .noSharedProtocol: .ssl(alert.map(SecureTransportCode.forPeerAlert) ?? SecureTransportCode.peerProtocolVersion)
        case .noSharedCipher: .ssl(alert.map(SecureTransportCode.forPeerAlert) ?? SecureTransportCode.peerHandshakeFailure)
        case .tlsAlert: .ssl(alert.map(SecureTransportCode.forPeerAlert) ?? SecureTransportCode.fatalAlert)
        // Network.framework turns a reset (and a close) before the handshake ends into
        // errSSLClosedNoNotify ("received ECONNRESET with incomplete TLS handshake").
        case .closedDuringHandshake, .resetDuringHandshake: .ssl(SecureTransportCode.closedNoNotify)
        case .clientRejected: .ssl(SecureTransportCode.negotiation)
        // URLSession reports a task cancelled by its owner as NSURLErrorCancelled (-999).
        case .cancelled: AppleError(code: AppleError.cancelled, streamErrorCode: 89, streamErrorDomain: 1)
        case .protocolViolation, .localResources, .other: .ssl(SecureTransportCode.protocolError)
        }
    }

    /// The trust codes of a chain problem, with the OSStatus of the policy check that fails
    /// (SecPolicyChecks.list).
    package static func trustCodes(for problem: TrustProblem.Kind) -> AppleTrustCodes {
        switch problem {
        case .untrustedRoot, .selfSigned: untrusted(SecureTransportCode.noRootCertificate, -67843, "errSecNotTrusted")
        case .incompleteChain: untrusted(SecureTransportCode.noRootCertificate, -25318, "errSecCreateChainFailed")
        case .expired: untrusted(SecureTransportCode.certificateExpired, -67818, "errSecCertificateExpired")
        case .notYetValid: untrusted(SecureTransportCode.certificateNotYetValid, -67819, "errSecCertificateNotValidYet")
        case .nameMismatch: untrusted(SecureTransportCode.hostNameMismatch, -67602, "errSecHostNameMismatch")
        case .invalidChain: untrusted(SecureTransportCode.certificateChainInvalid, -67843, "errSecNotTrusted")
        }
    }

    /// The trust codes of an Apple certificate rule.
    package static func trustCodes(forRule rule: CertificateRuleID) -> AppleTrustCodes {
        let invalid = SecureTransportCode.certificateChainInvalid
        switch rule {
        case .subjectAltNameMissing: return untrusted(SecureTransportCode.hostNameMismatch, -67602, "errSecHostNameMismatch")
        case .serverAuthEKU, .caServerAuthEKU: return untrusted(invalid, -67609, "errSecInvalidExtendedKeyUsage")
        case .validity825, .validity398: return untrusted(invalid, -67901, "errSecCertificateValidityPeriodTooLong")
        case .rsaKeySize, .rsaKeyTooLarge, .ecKeySize, .keyTypeUnsupported: return untrusted(invalid, -67735, "errSecUnsupportedKeySize")
        case .sha1Signature, .md5Signature: return untrusted(invalid, -67815, "errSecInvalidDigestAlgorithm")
        case .distrustedRoot, .ocspRevoked: return untrusted(invalid, -67820, "errSecCertificateRevoked")
        default: return untrusted(invalid, -67843, "errSecNotTrusted")  // certificate-transparency (CTRequired)
        }
    }

    private static func untrusted(_ secureTransport: Int, _ osStatus: Int, _ name: String) -> AppleTrustCodes {
        AppleTrustCodes(urlError: AppleError.serverCertificateUntrusted, secureTransport: secureTransport, osStatus: osStatus,
                        osStatusName: name)
    }
}

/// Secure Transport's status codes (SecureTransport.h) that atsprobe reports.
package enum SecureTransportCode {
    package static let protocolError = -9800
    package static let negotiation = -9801
    package static let fatalAlert = -9802
    package static let closedAbort = -9806
    package static let closedNoNotify = -9816
    package static let certificateChainInvalid = -9807
    package static let badCertificate = -9808
    package static let noRootCertificate = -9813
    package static let certificateExpired = -9814
    package static let certificateNotYetValid = -9815
    package static let peerHandshakeFailure = -9824
    package static let peerProtocolVersion = -9836
    package static let peerInsufficientSecurity = -9837
    package static let hostNameMismatch = -9843
    package static let atsViolation = -9880
    package static let atsMinimumVersionViolation = -9881
    package static let atsCipherSuiteViolation = -9882
    package static let atsMinimumKeySizeViolation = -9883
    package static let atsLeafCertificateHashViolation = -9884
    package static let atsCertificateHashViolation = -9885
    package static let atsCertificateTrustViolation = -9886

    /// errSSLPeer* for an alert received from the server (errSSLPeerUnexpectedMsg -9819 ... errSSLPeerNoRenegotiation -9840),
    /// errSSLFatalAlert for the rest.
    package static func forPeerAlert(_ alert: TLSAlert) -> Int {
        let table: [UInt8: Int] = [
            10: -9819, 20: -9820, 21: -9821, 22: -9822, 30: -9823, 40: -9824, 42: -9825, 43: -9826, 44: -9827,
            45: -9828, 46: -9829, 47: -9830, 48: -9831, 49: -9832, 50: -9833, 51: -9834, 60: -9835, 70: -9836,
            71: -9837, 80: -9838, 90: -9839, 100: -9840, 86: -9860, 109: -9861, 110: -9855, 112: -9865, 116: -9863,
        ]
        return table[alert.code] ?? fatalAlert
    }
}

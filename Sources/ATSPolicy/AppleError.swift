import TLSFacts

/// The NSError an Apple client's URLSession task would complete with, as nscurl prints it.
public struct AppleError: Sendable, Hashable, Codable {
    public var domain: String
    /// NSURLErrorDomain code (-1200, -1202, -1022, -1004, -1001, -1003, -1005).
    public var code: Int
    /// _kCFStreamErrorCodeKey: a Secure Transport code (-9836, -9824, -98xx) or a POSIX/netdb code.
    public var streamErrorCode: Int?
    /// _kCFStreamErrorDomainKey: 3 SSL, 1 POSIX, 12 netdb, 4 CFNetwork.
    public var streamErrorDomain: Int?
    public var localizedDescription: String
    /// NSErrorFailingURLStringKey, when the caller knows the URL.
    public var failingURL: String?
    /// For trust failures: the OSStatus SecTrustEvaluateWithError gives (errSecNotTrusted -67843, ...),
    /// shown as the peer trust error's NSOSStatusErrorDomain code.
    public var osStatus: Int?

    public init(domain: String = "NSURLErrorDomain", code: Int, streamErrorCode: Int? = nil, streamErrorDomain: Int? = nil,
                localizedDescription: String? = nil, failingURL: String? = nil, host: String? = nil) {
        self.domain = domain
        self.code = code
        self.streamErrorCode = streamErrorCode
        self.streamErrorDomain = streamErrorDomain
        self.localizedDescription = localizedDescription ?? AppleError.description(code: code, host: host)
        self.failingURL = failingURL
    }

    /// `Error Domain=NSURLErrorDomain Code=-1200 "An SSL error ..." UserInfo={_kCFStreamErrorCodeKey=-9836, ...}`.
    /// UserInfo holds the keys atsprobe knows, in a fixed order (Apple's order is a hash order).
    public var nscurlDescription: String {
        var info: [String] = []
        if let streamErrorCode { info.append("_kCFStreamErrorCodeKey=\(streamErrorCode)") }
        if let recoverySuggestion { info.append("NSLocalizedRecoverySuggestion=\(recoverySuggestion)") }
        if let streamErrorDomain { info.append("_kCFStreamErrorDomainKey=\(streamErrorDomain)") }
        if let osStatus { info.append("NSURLErrorFailingURLPeerTrustErrorKey=Error Domain=NSOSStatusErrorDomain Code=\(osStatus)") }
        if let failingURL {
            let url = UntrustedText.escape(failingURL, limit: 300)
            info.append("NSErrorFailingURLStringKey=\(url)")
            info.append("NSErrorFailingURLKey=\(url)")
        }
        info.append("NSLocalizedDescription=\(localizedDescription)")
        return "Error Domain=\(domain) Code=\(code) \"\(localizedDescription)\" UserInfo={\(info.joined(separator: ", "))}"
    }

    /// Apple adds this to the TLS errors (-1200, -1202).
    public var recoverySuggestion: String? {
        [AppleError.secureConnectionFailed, AppleError.serverCertificateUntrusted].contains(code)
            ? "Would you like to connect to the server anyway?" : nil
    }

    /// A copy naming the URL that failed.
    public func failing(url: String) -> AppleError {
        var copy = self
        copy.failingURL = url
        return copy
    }

    // NSURLError codes used here.
    public static let secureConnectionFailed = -1200
    public static let serverCertificateUntrusted = -1202
    public static let appTransportSecurityRequiresSecureConnection = -1022
    public static let cannotConnectToHost = -1004
    public static let timedOut = -1001
    public static let cannotFindHost = -1003
    public static let networkConnectionLost = -1005
    /// NSURLErrorHTTPTooManyRedirects: URLSession follows at most 16 redirects.
    public static let httpTooManyRedirects = -1007

    /// Apple's English localized descriptions (Foundation's NSURLError strings).
    static func description(code: Int, host: String?) -> String {
        switch code {
        case secureConnectionFailed: return "An SSL error has occurred and a secure connection to the server cannot be made."
        case serverCertificateUntrusted:
            return "The certificate for this server is invalid. You might be connecting to a server that is pretending to be "
                + "\u{201C}\(UntrustedText.escape(host ?? "", limit: 255))\u{201D} which could put your confidential information at risk."
        case appTransportSecurityRequiresSecureConnection:
            return "The resource could not be loaded because the App Transport Security policy requires the use of a secure connection."
        case cannotConnectToHost: return "Could not connect to the server."
        case timedOut: return "The request timed out."
        case cannotFindHost: return "A server with the specified hostname could not be found."
        case networkConnectionLost: return "The network connection was lost."
        case httpTooManyRedirects: return "too many HTTP redirects"
        default: return "An unknown error occurred."
        }
    }

    static func ssl(_ streamCode: Int, host: String? = nil) -> AppleError {
        AppleError(code: secureConnectionFailed, streamErrorCode: streamCode, streamErrorDomain: 3, host: host)
    }

    static func untrusted(_ streamCode: Int, host: String, osStatus: Int? = nil) -> AppleError {
        var error = AppleError(code: serverCertificateUntrusted, streamErrorCode: streamCode, streamErrorDomain: 3, host: host)
        error.osStatus = osStatus
        return error
    }
}

/// Secure Transport's status codes (SecureTransport.h) that atsprobe reports.
public enum SecureTransportCode {
    public static let protocolError = -9800
    public static let negotiation = -9801
    public static let fatalAlert = -9802
    public static let closedAbort = -9806
    public static let closedNoNotify = -9816
    public static let certificateChainInvalid = -9807
    public static let badCertificate = -9808
    public static let noRootCertificate = -9813
    public static let certificateExpired = -9814
    public static let certificateNotYetValid = -9815
    public static let peerHandshakeFailure = -9824
    public static let peerProtocolVersion = -9836
    public static let peerInsufficientSecurity = -9837
    public static let hostNameMismatch = -9843
    public static let atsViolation = -9880
    public static let atsMinimumVersionViolation = -9881
    public static let atsCipherSuiteViolation = -9882
    public static let atsMinimumKeySizeViolation = -9883
    public static let atsLeafCertificateHashViolation = -9884
    public static let atsCertificateHashViolation = -9885
    public static let atsCertificateTrustViolation = -9886

    /// errSSLPeer* for an alert received from the server (errSSLPeerUnexpectedMsg -9819 ... errSSLPeerNoRenegotiation -9840),
    /// errSSLFatalAlert for the rest.
    public static func forPeerAlert(_ alert: TLSAlert) -> Int {
        let table: [UInt8: Int] = [
            10: -9819, 20: -9820, 21: -9821, 22: -9822, 30: -9823, 40: -9824, 42: -9825, 43: -9826, 44: -9827,
            45: -9828, 46: -9829, 47: -9830, 48: -9831, 49: -9832, 50: -9833, 51: -9834, 60: -9835, 70: -9836,
            71: -9837, 80: -9838, 90: -9839, 100: -9840, 86: -9860, 109: -9861, 110: -9855, 112: -9865, 116: -9863,
        ]
        return table[alert.code] ?? fatalAlert
    }
}

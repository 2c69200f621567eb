import TextSupport
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
    public static let cancelled = -999

    /// Apple's English localized descriptions (Foundation's NSURLError strings).
    static func description(code: Int, host: String?) -> String {
        switch code {
        case secureConnectionFailed: return "An SSL error has occurred and a secure connection to the server cannot be made."
        case cancelled: return "cancelled"
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

import ATSPolicy

/// What App Store review asks for when a key weakens ATS. The reasons are Apple's own examples
/// ("Preparing your app for App Transport Security" / "NSAppTransportSecurity" documentation).
enum ReviewJustification {
    static let arbitraryLoads = "NSAllowsArbitraryLoads = true turns ATS off for every domain not listed; App Store review asks you to justify it, e.g. the app must connect to servers run by others that do not support secure connections, or to devices that cannot be upgraded"
    static let arbitraryLoadsFix = "list only the hosts that need it in NSExceptionDomains, or prepare that justification for review"

    static func forGlobalKey(_ key: ATSKey) -> String? {
        switch key {
        case .allowsArbitraryLoadsForMedia, .allowsArbitraryLoadsInMedia:
            return "\(key.name) = true lifts ATS for AVFoundation media; App Store review asks you to justify it, e.g. loading media that is encrypted and contains no personal information"
        case .allowsArbitraryLoadsInWebContent:
            return "\(key.name) = true lifts ATS for web views; App Store review asks you to justify it, e.g. the app must show web content from many sources it does not control"
        default:
            return nil
        }
    }
    static let globalKeyFix = "serve the content over HTTPS, or prepare that justification for review"

    static func insecureHTTP(key: String, domain: String) -> String {
        "\(key) = true allows plain HTTP to \(domain); App Store review asks you to justify it, e.g. the server is run by another party and does not support HTTPS"
    }
    static let insecureHTTPFix = "serve the domain over HTTPS, or prepare that justification for review"

    static func oldTLS(key: String, version: String, domain: String) -> String {
        "\(key) = \(version) accepts a protocol older than TLS 1.2 for \(domain); App Store review asks you to justify it, e.g. the server is run by another party and cannot be upgraded"
    }
    static let oldTLSFix = "upgrade the server to TLS 1.2 or later and remove the key, or prepare that justification for review"
}

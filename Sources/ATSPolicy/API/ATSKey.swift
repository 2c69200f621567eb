/// Every key of the NSAppTransportSecurity dictionary (ats-reference section 1), as data:
/// where it may appear, the type of its value, and what Apple says about it.
public struct ATSKey: Hashable, Sendable, CustomStringConvertible {
    public enum Scope: String, Hashable, Sendable {
        /// Directly under NSAppTransportSecurity.
        case global
        /// Inside an NSExceptionDomains entry.
        case exceptionDomain
        /// Inside an NSPinnedDomains entry.
        case pinnedDomain
    }
    public enum ValueType: String, Hashable, Sendable { case boolean, string, dictionary, array }

    public let name: String
    public let scope: Scope
    public let valueType: ValueType
    /// Replaced or obsolete; the note says by what.
    public let deprecation: String?
    /// App Store review asks for a justification when this key weakens ATS.
    public let needsReviewJustification: Bool
    /// The first release that reads the key ("iOS 10", "26.4").
    public let since: String

    public var description: String { name }

    init(_ name: String, _ scope: Scope, _ valueType: ValueType, since: String = "iOS 9",
         deprecation: String? = nil, justify: Bool = false) {
        self.name = name
        self.scope = scope
        self.valueType = valueType
        self.since = since
        self.deprecation = deprecation
        self.needsReviewJustification = justify
    }

    // Global keys.
    public static let appTransportSecurity = ATSKey("NSAppTransportSecurity", .global, .dictionary)
    public static let allowsArbitraryLoads = ATSKey("NSAllowsArbitraryLoads", .global, .boolean, justify: true)
    public static let allowsArbitraryLoadsForMedia = ATSKey("NSAllowsArbitraryLoadsForMedia", .global, .boolean, since: "iOS 10", justify: true)
    /// Some of Apple's pages spell the media key this way; both are accepted on read.
    public static let allowsArbitraryLoadsInMedia = ATSKey("NSAllowsArbitraryLoadsInMedia", .global, .boolean, since: "iOS 10", justify: true)
    public static let allowsArbitraryLoadsInWebContent = ATSKey("NSAllowsArbitraryLoadsInWebContent", .global, .boolean, since: "iOS 10", justify: true)
    public static let allowsLocalNetworking = ATSKey("NSAllowsLocalNetworking", .global, .boolean, since: "iOS 10")
    public static let requiresNIAPTLSPackageVersion = ATSKey("NSRequiresNIAPTLSPackageVersion", .global, .string, since: "26.4")
    public static let exceptionDomains = ATSKey("NSExceptionDomains", .global, .dictionary)
    public static let pinnedDomains = ATSKey("NSPinnedDomains", .global, .dictionary, since: "iOS 14")

    // Exception-domain keys.
    public static let includesSubdomains = ATSKey("NSIncludesSubdomains", .exceptionDomain, .boolean)
    public static let exceptionAllowsInsecureHTTPLoads = ATSKey("NSExceptionAllowsInsecureHTTPLoads", .exceptionDomain, .boolean, justify: true)
    public static let exceptionMinimumTLSVersion = ATSKey("NSExceptionMinimumTLSVersion", .exceptionDomain, .string, justify: true)
    public static let exceptionRequiresForwardSecrecy = ATSKey("NSExceptionRequiresForwardSecrecy", .exceptionDomain, .boolean)
    public static let requiresCertificateTransparency = ATSKey("NSRequiresCertificateTransparency", .exceptionDomain, .boolean, since: "iOS 10",
        deprecation: "changes nothing for Apple's CT-required roots, which require Certificate Transparency anyway; for user-installed roots and app anchors it makes CT required (KeyJudgement)")
    public static let exceptionRequiresNIAPTLSPackageVersion = ATSKey("NSExceptionRequiresNIAPTLSPackageVersion", .exceptionDomain, .string, since: "26.4")
    public static let thirdPartyExceptionAllowsInsecureHTTPLoads = ATSKey("NSThirdPartyExceptionAllowsInsecureHTTPLoads", .exceptionDomain, .boolean,
        deprecation: "iOS 9-era name: use NSExceptionAllowsInsecureHTTPLoads", justify: true)
    public static let thirdPartyExceptionMinimumTLSVersion = ATSKey("NSThirdPartyExceptionMinimumTLSVersion", .exceptionDomain, .string,
        deprecation: "iOS 9-era name: use NSExceptionMinimumTLSVersion", justify: true)
    public static let thirdPartyExceptionRequiresForwardSecrecy = ATSKey("NSThirdPartyExceptionRequiresForwardSecrecy", .exceptionDomain, .boolean,
        deprecation: "iOS 9-era name: use NSExceptionRequiresForwardSecrecy")
    public static let temporaryExceptionAllowsInsecureHTTPLoads = ATSKey("NSTemporaryExceptionAllowsInsecureHTTPLoads", .exceptionDomain, .boolean,
        deprecation: "first iOS 9 beta name: use NSExceptionAllowsInsecureHTTPLoads", justify: true)
    public static let temporaryExceptionMinimumTLSVersion = ATSKey("NSTemporaryExceptionMinimumTLSVersion", .exceptionDomain, .string,
        deprecation: "first iOS 9 beta name: use NSExceptionMinimumTLSVersion", justify: true)
    public static let temporaryExceptionRequiresForwardSecrecy = ATSKey("NSTemporaryExceptionRequiresForwardSecrecy", .exceptionDomain, .boolean,
        deprecation: "first iOS 9 beta name: use NSExceptionRequiresForwardSecrecy")

    // Pinned-domain keys.
    public static let pinnedIncludesSubdomains = ATSKey("NSIncludesSubdomains", .pinnedDomain, .boolean, since: "iOS 14")
    public static let pinnedCAIdentities = ATSKey("NSPinnedCAIdentities", .pinnedDomain, .array, since: "iOS 14")
    public static let pinnedLeafIdentities = ATSKey("NSPinnedLeafIdentities", .pinnedDomain, .array, since: "iOS 14")
    /// The one key of each identity dictionary in the pin arrays.
    public static let spkiSHA256Base64 = "SPKI-SHA256-BASE64"

    public static let all: [ATSKey] = [
        .allowsArbitraryLoads, .allowsArbitraryLoadsForMedia, .allowsArbitraryLoadsInMedia, .allowsArbitraryLoadsInWebContent,
        .allowsLocalNetworking, .requiresNIAPTLSPackageVersion, .exceptionDomains, .pinnedDomains,
        .includesSubdomains, .exceptionAllowsInsecureHTTPLoads, .exceptionMinimumTLSVersion, .exceptionRequiresForwardSecrecy,
        .requiresCertificateTransparency, .exceptionRequiresNIAPTLSPackageVersion,
        .thirdPartyExceptionAllowsInsecureHTTPLoads, .thirdPartyExceptionMinimumTLSVersion, .thirdPartyExceptionRequiresForwardSecrecy,
        .temporaryExceptionAllowsInsecureHTTPLoads, .temporaryExceptionMinimumTLSVersion, .temporaryExceptionRequiresForwardSecrecy,
        .pinnedIncludesSubdomains, .pinnedCAIdentities, .pinnedLeafIdentities,
    ]

    public static func keys(in scope: Scope) -> [ATSKey] { all.filter { $0.scope == scope } }
    public static func named(_ name: String, in scope: Scope) -> ATSKey? { all.first { $0.name == name && $0.scope == scope } }
}

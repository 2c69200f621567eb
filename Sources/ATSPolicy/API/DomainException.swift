#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PropertyList
import TLSFacts

/// One NSExceptionDomains entry. Optional fields are keys that may be absent; absent keys
/// take Apple's defaults (the `effective...` properties).
public struct DomainException: Sendable, Hashable {
    public var includesSubdomains: Bool
    public var allowsInsecureHTTPLoads: Bool
    /// NSExceptionMinimumTLSVersion exactly as written (it may be malformed).
    public var minimumTLSVersion: String?
    public var requiresForwardSecrecy: Bool?
    /// Obsolete (CT is now always required for public roots); kept for round trips.
    public var requiresCertificateTransparency: Bool?
    /// 26.4+; tightens only, not evaluated here.
    public var requiresNIAPTLSPackageVersion: String?

    public init(includesSubdomains: Bool = false, allowsInsecureHTTPLoads: Bool = false, minimumTLSVersion: String? = nil,
                requiresForwardSecrecy: Bool? = nil, requiresCertificateTransparency: Bool? = nil,
                requiresNIAPTLSPackageVersion: String? = nil) {
        self.includesSubdomains = includesSubdomains
        self.allowsInsecureHTTPLoads = allowsInsecureHTTPLoads
        self.minimumTLSVersion = minimumTLSVersion
        self.requiresForwardSecrecy = requiresForwardSecrecy
        self.requiresCertificateTransparency = requiresCertificateTransparency
        self.requiresNIAPTLSPackageVersion = requiresNIAPTLSPackageVersion
    }

    /// Apple parses only "TLSv1." followed by one digit 0-3; anything else (a missing key,
    /// "TLSv1.4", "1.1", "tlsv1.1", "TLSv1.1 ") leaves the default TLS 1.2.
    public var effectiveMinimumTLSVersion: TLSVersion {
        DomainException.parseMinimumTLSVersion(minimumTLSVersion) ?? .tls12
    }

    /// The version Apple's parser reads from the string, nil when it reads none.
    public static func parseMinimumTLSVersion(_ text: String?) -> TLSVersion? {
        guard let text, text.utf8.count == 7, text.hasPrefix("TLSv1."), let digit = text.utf8.last,
              (UInt8(ascii: "0")...UInt8(ascii: "3")).contains(digit) else { return nil }
        return TLSVersion(rawValue: 0x0301 + UInt16(digit - UInt8(ascii: "0")))
    }

    public var effectiveRequiresForwardSecrecy: Bool { requiresForwardSecrecy ?? true }

    /// Reads an entry as Apple's code does (`ATSValueReading`: booleans are NSNumbers compared
    /// with YES, other types ignored; NSExceptionMinimumTLSVersion must be a string, else TLSv1.2).
    /// The iOS 9-era NSThirdPartyException* and NSTemporaryException* names are read as their
    /// current names, which win when both are present.
    public init(propertyList dict: [String: PropertyListValue]) {
        func first<T>(_ names: [ATSKey], _ read: (PropertyListValue) -> T?) -> T? {
            for key in names { if let value = dict[key.name].flatMap(read) { return value } }
            return nil
        }
        self.init(
            includesSubdomains: ATSValueReading.boolean(dict[ATSKey.includesSubdomains.name]) ?? false,
            allowsInsecureHTTPLoads: first([.exceptionAllowsInsecureHTTPLoads, .thirdPartyExceptionAllowsInsecureHTTPLoads,
                                            .temporaryExceptionAllowsInsecureHTTPLoads], ATSValueReading.boolean) ?? false,
            minimumTLSVersion: first([.exceptionMinimumTLSVersion, .thirdPartyExceptionMinimumTLSVersion,
                                      .temporaryExceptionMinimumTLSVersion], \.stringValue),
            requiresForwardSecrecy: first([.exceptionRequiresForwardSecrecy, .thirdPartyExceptionRequiresForwardSecrecy,
                                           .temporaryExceptionRequiresForwardSecrecy], ATSValueReading.boolean),
            requiresCertificateTransparency: ATSValueReading.boolean(dict[ATSKey.requiresCertificateTransparency.name]),
            requiresNIAPTLSPackageVersion: dict[ATSKey.exceptionRequiresNIAPTLSPackageVersion.name]?.stringValue)
    }

    /// The keys that are set, with their current names. False booleans whose default is
    /// false are left out, as nscurl's dictionaries leave them out.
    public var propertyList: [String: PropertyListValue] {
        var dict: [String: PropertyListValue] = [:]
        if includesSubdomains { dict[ATSKey.includesSubdomains.name] = true }
        if allowsInsecureHTTPLoads { dict[ATSKey.exceptionAllowsInsecureHTTPLoads.name] = true }
        if let minimumTLSVersion { dict[ATSKey.exceptionMinimumTLSVersion.name] = .string(minimumTLSVersion) }
        if let requiresForwardSecrecy { dict[ATSKey.exceptionRequiresForwardSecrecy.name] = .boolean(requiresForwardSecrecy) }
        if let requiresCertificateTransparency { dict[ATSKey.requiresCertificateTransparency.name] = .boolean(requiresCertificateTransparency) }
        if let requiresNIAPTLSPackageVersion { dict[ATSKey.exceptionRequiresNIAPTLSPackageVersion.name] = .string(requiresNIAPTLSPackageVersion) }
        return dict
    }
}

/// One NSPinnedDomains entry: the pinning judgement's PinSet, read from and written to the
/// property list here. One type, so diagnostics and `pins` read an entry the same way.
public typealias PinnedDomain = PinSet

extension PinSet {
    /// Reads an entry as Apple's code does (OSX/sec/Security/SecPolicy.c, `parseNSPinnedDomains`):
    /// an identity key that is present pins the domain whatever its value; its identities are the
    /// elements that are dictionaries holding a string SPKI-SHA256-BASE64 that decodes as base64
    /// (others are skipped). So a present key with no usable identity (an empty array, a string,
    /// only unreadable elements) is an empty pin set, which no certificate matches: the load fails
    /// (trust/trustd/SecPolicyServer.c, `SecPolicyCheckLeafSPKISHA256`, `SecPolicyCheckCAspkiSHA256`).
    /// NSIncludesSubdomains counts only when it is the boolean true (`== kCFBooleanTrue`).
    public init(propertyList dict: [String: PropertyListValue]) {
        func identities(_ key: ATSKey) -> [String]? {
            guard let value = dict[key.name] else { return nil }
            return (value.arrayValue ?? []).compactMap { item in
                item[ATSKey.spkiSHA256Base64]?.stringValue.flatMap(PinSet.readableIdentity)
            }
        }
        self.init(includesSubdomains: ATSValueReading.isBooleanTrue(dict[ATSKey.pinnedIncludesSubdomains.name]),
                  caIdentities: identities(.pinnedCAIdentities), leafIdentities: identities(.pinnedLeafIdentities))
    }

    /// The identity as written when it decodes as base64; nil when it does not
    /// (`CreateCFDataFromBase64CFString` fails, and Apple skips the identity).
    public static func readableIdentity(_ text: String) -> String? {
        Data(base64Encoded: text) == nil ? nil : text
    }

    public var propertyList: [String: PropertyListValue] {
        func identities(_ digests: [String]) -> PropertyListValue { .array(digests.map { [ATSKey.spkiSHA256Base64: .string($0)] }) }
        var dict: [String: PropertyListValue] = [:]
        if includesSubdomains { dict[ATSKey.pinnedIncludesSubdomains.name] = true }
        if let caIdentities { dict[ATSKey.pinnedCAIdentities.name] = identities(caIdentities) }
        if let leafIdentities { dict[ATSKey.pinnedLeafIdentities.name] = identities(leafIdentities) }
        return dict
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// JSON for the ATS dictionary types uses the Info.plist key names and, like `propertyList`,
/// only the keys that are set, so a JSON dictionary reads like the plist it stands for.
struct PlistKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init(_ key: ATSKey) { stringValue = key.name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension DomainException: Codable {
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: PlistKey.self)
        self.init(
            includesSubdomains: try c.decodeIfPresent(Bool.self, forKey: PlistKey(.includesSubdomains)) ?? false,
            allowsInsecureHTTPLoads: try c.decodeIfPresent(Bool.self, forKey: PlistKey(.exceptionAllowsInsecureHTTPLoads)) ?? false,
            minimumTLSVersion: try c.decodeIfPresent(String.self, forKey: PlistKey(.exceptionMinimumTLSVersion)),
            requiresForwardSecrecy: try c.decodeIfPresent(Bool.self, forKey: PlistKey(.exceptionRequiresForwardSecrecy)),
            requiresCertificateTransparency: try c.decodeIfPresent(Bool.self, forKey: PlistKey(.requiresCertificateTransparency)),
            requiresNIAPTLSPackageVersion: try c.decodeIfPresent(String.self, forKey: PlistKey(.exceptionRequiresNIAPTLSPackageVersion)))
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: PlistKey.self)
        if includesSubdomains { try c.encode(true, forKey: PlistKey(.includesSubdomains)) }
        if allowsInsecureHTTPLoads { try c.encode(true, forKey: PlistKey(.exceptionAllowsInsecureHTTPLoads)) }
        try c.encodeIfPresent(minimumTLSVersion, forKey: PlistKey(.exceptionMinimumTLSVersion))
        try c.encodeIfPresent(requiresForwardSecrecy, forKey: PlistKey(.exceptionRequiresForwardSecrecy))
        try c.encodeIfPresent(requiresCertificateTransparency, forKey: PlistKey(.requiresCertificateTransparency))
        try c.encodeIfPresent(requiresNIAPTLSPackageVersion, forKey: PlistKey(.exceptionRequiresNIAPTLSPackageVersion))
    }
}

extension PinnedDomain: Codable {
    private struct Identity: Codable {
        var spki: String
        enum CodingKeys: String, CodingKey { case spki = "SPKI-SHA256-BASE64" }
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: PlistKey.self)
        self.init(includesSubdomains: try c.decodeIfPresent(Bool.self, forKey: PlistKey(.pinnedIncludesSubdomains)) ?? false,
                  caIdentities: try c.decodeIfPresent([Identity].self, forKey: PlistKey(.pinnedCAIdentities))?.map(\.spki),
                  leafIdentities: try c.decodeIfPresent([Identity].self, forKey: PlistKey(.pinnedLeafIdentities))?.map(\.spki))
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: PlistKey.self)
        if includesSubdomains { try c.encode(true, forKey: PlistKey(.pinnedIncludesSubdomains)) }
        try c.encodeIfPresent(caIdentities?.map(Identity.init(spki:)), forKey: PlistKey(.pinnedCAIdentities))
        try c.encodeIfPresent(leafIdentities?.map(Identity.init(spki:)), forKey: PlistKey(.pinnedLeafIdentities))
    }
}

extension ATSConfiguration: Codable {
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: PlistKey.self)
        self.init(
            allowsArbitraryLoads: try c.decodeIfPresent(Bool.self, forKey: PlistKey(.allowsArbitraryLoads)) ?? false,
            allowsArbitraryLoadsForMedia: try c.decodeIfPresent(Bool.self, forKey: PlistKey(.allowsArbitraryLoadsForMedia))
                ?? c.decodeIfPresent(Bool.self, forKey: PlistKey(.allowsArbitraryLoadsInMedia)),
            allowsArbitraryLoadsInWebContent: try c.decodeIfPresent(Bool.self, forKey: PlistKey(.allowsArbitraryLoadsInWebContent)),
            allowsLocalNetworking: try c.decodeIfPresent(Bool.self, forKey: PlistKey(.allowsLocalNetworking)),
            requiresNIAPTLSPackageVersion: try c.decodeIfPresent(String.self, forKey: PlistKey(.requiresNIAPTLSPackageVersion)),
            exceptionDomains: try c.decodeIfPresent([String: DomainException].self, forKey: PlistKey(.exceptionDomains)) ?? [:],
            pinnedDomains: try c.decodeIfPresent([String: PinnedDomain].self, forKey: PlistKey(.pinnedDomains)) ?? [:])
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: PlistKey.self)
        if allowsArbitraryLoads { try c.encode(true, forKey: PlistKey(.allowsArbitraryLoads)) }
        try c.encodeIfPresent(allowsArbitraryLoadsForMedia, forKey: PlistKey(.allowsArbitraryLoadsForMedia))
        try c.encodeIfPresent(allowsArbitraryLoadsInWebContent, forKey: PlistKey(.allowsArbitraryLoadsInWebContent))
        try c.encodeIfPresent(allowsLocalNetworking, forKey: PlistKey(.allowsLocalNetworking))
        try c.encodeIfPresent(requiresNIAPTLSPackageVersion, forKey: PlistKey(.requiresNIAPTLSPackageVersion))
        if !exceptionDomains.isEmpty { try c.encode(exceptionDomains, forKey: PlistKey(.exceptionDomains)) }
        if !pinnedDomains.isEmpty { try c.encode(pinnedDomains, forKey: PlistKey(.pinnedDomains)) }
    }
}

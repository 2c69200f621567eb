#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The NSAppTransportSecurity dictionary of an app. Global keys whose mere presence matters
/// (the three that switch NSAllowsArbitraryLoads off) are optional; the others default to NO.
public struct ATSConfiguration: Sendable, Hashable {
    public var allowsArbitraryLoads: Bool
    /// NSAllowsArbitraryLoadsForMedia (also read as NSAllowsArbitraryLoadsInMedia); nil when absent.
    public var allowsArbitraryLoadsForMedia: Bool?
    public var allowsArbitraryLoadsInWebContent: Bool?
    public var allowsLocalNetworking: Bool?
    /// 26.4+; tightens only, not evaluated here.
    public var requiresNIAPTLSPackageVersion: String?
    /// Keyed by the domain exactly as written.
    public var exceptionDomains: [String: DomainException]
    public var pinnedDomains: [String: PinnedDomain]

    public init(allowsArbitraryLoads: Bool = false, allowsArbitraryLoadsForMedia: Bool? = nil,
                allowsArbitraryLoadsInWebContent: Bool? = nil, allowsLocalNetworking: Bool? = nil,
                requiresNIAPTLSPackageVersion: String? = nil,
                exceptionDomains: [String: DomainException] = [:], pinnedDomains: [String: PinnedDomain] = [:]) {
        self.allowsArbitraryLoads = allowsArbitraryLoads
        self.allowsArbitraryLoadsForMedia = allowsArbitraryLoadsForMedia
        self.allowsArbitraryLoadsInWebContent = allowsArbitraryLoadsInWebContent
        self.allowsLocalNetworking = allowsLocalNetworking
        self.requiresNIAPTLSPackageVersion = requiresNIAPTLSPackageVersion
        self.exceptionDomains = exceptionDomains
        self.pinnedDomains = pinnedDomains
    }

    /// The empty dictionary: ATS defaults everywhere.
    public static let `default` = ATSConfiguration()

    /// Reads the NSAppTransportSecurity dictionary (its contents, not the Info.plist around it).
    /// Lenient: values of the wrong type are ignored, as Apple ignores them.
    public init(propertyList dict: [String: Any]) {
        var exceptions: [String: DomainException] = [:]
        for (domain, value) in PropertyListValue.dictionary(dict[ATSKey.exceptionDomains.name]) ?? [:] {
            exceptions[domain] = DomainException(propertyList: PropertyListValue.dictionary(value) ?? [:])
        }
        var pins: [String: PinnedDomain] = [:]
        for (domain, value) in PropertyListValue.dictionary(dict[ATSKey.pinnedDomains.name]) ?? [:] {
            pins[domain] = PinnedDomain(propertyList: PropertyListValue.dictionary(value) ?? [:])
        }
        self.init(
            allowsArbitraryLoads: PropertyListValue.bool(dict[ATSKey.allowsArbitraryLoads.name]) ?? false,
            allowsArbitraryLoadsForMedia: PropertyListValue.bool(dict[ATSKey.allowsArbitraryLoadsForMedia.name])
                ?? PropertyListValue.bool(dict[ATSKey.allowsArbitraryLoadsInMedia.name]),
            allowsArbitraryLoadsInWebContent: PropertyListValue.bool(dict[ATSKey.allowsArbitraryLoadsInWebContent.name]),
            allowsLocalNetworking: PropertyListValue.bool(dict[ATSKey.allowsLocalNetworking.name]),
            requiresNIAPTLSPackageVersion: PropertyListValue.string(dict[ATSKey.requiresNIAPTLSPackageVersion.name]),
            exceptionDomains: exceptions,
            pinnedDomains: pins)
    }

    /// The keys that are set, with current names (the media key as ...ForMedia).
    public var propertyList: [String: Any] {
        var dict: [String: Any] = [:]
        if allowsArbitraryLoads { dict[ATSKey.allowsArbitraryLoads.name] = true }
        if let allowsArbitraryLoadsForMedia { dict[ATSKey.allowsArbitraryLoadsForMedia.name] = allowsArbitraryLoadsForMedia }
        if let allowsArbitraryLoadsInWebContent { dict[ATSKey.allowsArbitraryLoadsInWebContent.name] = allowsArbitraryLoadsInWebContent }
        if let allowsLocalNetworking { dict[ATSKey.allowsLocalNetworking.name] = allowsLocalNetworking }
        if let requiresNIAPTLSPackageVersion { dict[ATSKey.requiresNIAPTLSPackageVersion.name] = requiresNIAPTLSPackageVersion }
        if !exceptionDomains.isEmpty {
            dict[ATSKey.exceptionDomains.name] = exceptionDomains.mapValues { $0.propertyList }
        }
        if !pinnedDomains.isEmpty {
            dict[ATSKey.pinnedDomains.name] = pinnedDomains.mapValues { $0.propertyList }
        }
        return dict
    }

    /// NSAllowsArbitraryLoads as iOS 10+ reads it: ignored (treated as NO) when ...ForMedia,
    /// ...InWebContent or NSAllowsLocalNetworking is present, whatever their value.
    public var effectiveAllowsArbitraryLoads: Bool {
        allowsArbitraryLoads && allowsArbitraryLoadsForMedia == nil && allowsArbitraryLoadsInWebContent == nil
            && allowsLocalNetworking == nil
    }

    /// The dictionary as nscurl --verbose prints it (NSDictionary's description).
    public func nsDictionaryDescription(indent: Int = 0) -> String {
        NSDictionaryDescription.render(propertyList, indent: indent)
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PropertyList

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
    /// The NSAppTransportSecurity dictionary as written, when the configuration was read from one
    /// (`init(propertyList:)`); nil for one built in code. `KeyJudgement` reads it for what the
    /// typed fields cannot hold: near-miss keys and values Apple's reader ignores.
    public var written: [String: PropertyListValue]?

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

    /// Equal when they mean the same: `written` (how the dictionary was spelled) is left out.
    public static func == (a: ATSConfiguration, b: ATSConfiguration) -> Bool {
        a.allowsArbitraryLoads == b.allowsArbitraryLoads && a.allowsArbitraryLoadsForMedia == b.allowsArbitraryLoadsForMedia
            && a.allowsArbitraryLoadsInWebContent == b.allowsArbitraryLoadsInWebContent && a.allowsLocalNetworking == b.allowsLocalNetworking
            && a.requiresNIAPTLSPackageVersion == b.requiresNIAPTLSPackageVersion && a.exceptionDomains == b.exceptionDomains
            && a.pinnedDomains == b.pinnedDomains
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(allowsArbitraryLoads)
        hasher.combine(allowsArbitraryLoadsForMedia)
        hasher.combine(allowsArbitraryLoadsInWebContent)
        hasher.combine(allowsLocalNetworking)
        hasher.combine(requiresNIAPTLSPackageVersion)
        hasher.combine(exceptionDomains)
        hasher.combine(pinnedDomains)
    }

    /// The empty dictionary: ATS defaults everywhere.
    public static let `default` = ATSConfiguration()

    /// Reads the NSAppTransportSecurity dictionary (its contents, not the Info.plist around it)
    /// as Apple's code does (`ATSValueReading`): a boolean is an NSNumber compared with YES, so
    /// `<integer>2</integer>` is NO and the string "YES" is ignored (the key stays absent); an
    /// NSExceptionDomains or NSPinnedDomains entry that is not a dictionary is no entry at all
    /// (SecProtocolConfiguration.m, `sec_protocol_configuration_set_ats_overrides`: "exception must
    /// be a dictionary"; SecPolicy.c, `parseNSPinnedDomains`: `isDictionary(value)`).
    public init(propertyList dict: [String: PropertyListValue]) {
        var exceptions: [String: DomainException] = [:]
        for (domain, value) in dict[ATSKey.exceptionDomains.name]?.dictionaryValue ?? [:] {
            guard let entry = value.dictionaryValue else { continue }
            exceptions[domain] = DomainException(propertyList: entry)
        }
        var pins: [String: PinnedDomain] = [:]
        for (domain, value) in dict[ATSKey.pinnedDomains.name]?.dictionaryValue ?? [:] {
            guard let entry = value.dictionaryValue else { continue }
            pins[domain] = PinnedDomain(propertyList: entry)
        }
        func boolean(_ key: ATSKey) -> Bool? { ATSValueReading.boolean(dict[key.name]) }
        self.init(
            allowsArbitraryLoads: boolean(.allowsArbitraryLoads) ?? false,
            allowsArbitraryLoadsForMedia: boolean(.allowsArbitraryLoadsForMedia) ?? boolean(.allowsArbitraryLoadsInMedia),
            allowsArbitraryLoadsInWebContent: boolean(.allowsArbitraryLoadsInWebContent),
            allowsLocalNetworking: boolean(.allowsLocalNetworking),
            requiresNIAPTLSPackageVersion: dict[ATSKey.requiresNIAPTLSPackageVersion.name]?.stringValue,
            exceptionDomains: exceptions,
            pinnedDomains: pins)
        written = dict
    }

    /// The keys that are set, with current names (the media key as ...ForMedia).
    public var propertyList: [String: PropertyListValue] {
        var dict: [String: PropertyListValue] = [:]
        if allowsArbitraryLoads { dict[ATSKey.allowsArbitraryLoads.name] = true }
        if let allowsArbitraryLoadsForMedia { dict[ATSKey.allowsArbitraryLoadsForMedia.name] = .boolean(allowsArbitraryLoadsForMedia) }
        if let allowsArbitraryLoadsInWebContent { dict[ATSKey.allowsArbitraryLoadsInWebContent.name] = .boolean(allowsArbitraryLoadsInWebContent) }
        if let allowsLocalNetworking { dict[ATSKey.allowsLocalNetworking.name] = .boolean(allowsLocalNetworking) }
        if let requiresNIAPTLSPackageVersion { dict[ATSKey.requiresNIAPTLSPackageVersion.name] = .string(requiresNIAPTLSPackageVersion) }
        if !exceptionDomains.isEmpty {
            dict[ATSKey.exceptionDomains.name] = .dictionary(exceptionDomains.mapValues { .dictionary($0.propertyList) })
        }
        if !pinnedDomains.isEmpty {
            dict[ATSKey.pinnedDomains.name] = .dictionary(pinnedDomains.mapValues { .dictionary($0.propertyList) })
        }
        return dict
    }

    /// NSAllowsArbitraryLoads as iOS 10+ reads it: ignored (treated as NO) when ...ForMedia,
    /// ...InWebContent or NSAllowsLocalNetworking is present, whatever their value.
    public var effectiveAllowsArbitraryLoads: Bool {
        allowsArbitraryLoads && allowsArbitraryLoadsForMedia == nil && allowsArbitraryLoadsInWebContent == nil
            && allowsLocalNetworking == nil
    }

    /// `{NSAppTransportSecurity: dictionary}` as an XML property list (keys sorted, XML escaped):
    /// the suggested dictionary of `diagnose`/`audit --format plist`, the tightened one of `plist
    /// check` and `app`.
    package static func infoPlistXML(_ dictionary: [String: PropertyListValue]) throws(PropertyListError) -> String {
        let data = try PropertyListFile.write([ATSKey.appTransportSecurity.name: .dictionary(dictionary)], format: .xml)
        return String(decoding: data, as: UTF8.self)
    }

    /// The dictionary as nscurl --verbose prints it (NSDictionary's description).
    public func nsDictionaryDescription(indent: Int = 0) -> String {
        NSDictionaryDescription.render(propertyList, indent: indent)
    }
}

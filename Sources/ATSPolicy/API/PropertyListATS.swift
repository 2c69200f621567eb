import PropertyList

/// Where a property list keeps its ATS dictionary.
extension PropertyListDocument {
    /// True when the root itself is an ATS dictionary (a fragment, not a whole Info.plist): no
    /// NSAppTransportSecurity key, no CFBundle* key (every app's Info.plist has them), and at
    /// least one top-level key that is a global ATS key or a near miss of one.
    public var isBareATSDictionary: Bool {
        guard root[ATSKey.appTransportSecurity.name] == nil, !root.keys.contains(where: { $0.hasPrefix("CFBundle") }) else { return false }
        let globalNames = ATSKey.keys(in: .global).map(\.name)
        return root.keys.contains { globalNames.contains($0) || KeySuggestion.nearest(to: $0, among: globalNames) != nil }
    }

    /// root["NSAppTransportSecurity"] when it is a dictionary, the root when it is bare, else nil.
    public var atsDictionary: [String: PropertyListValue]? {
        if isBareATSDictionary { return root }
        return root[ATSKey.appTransportSecurity.name]?.dictionaryValue
    }
}

extension PropertyListValue.Kind {
    /// The kind an ATS key expects.
    public init(_ valueType: ATSKey.ValueType) {
        switch valueType {
        case .boolean: self = .boolean
        case .string: self = .string
        case .dictionary: self = .dictionary
        case .array: self = .array
        }
    }
}

// JSON for the ATS dictionary types is their property list (`propertyList`, the one
// serialiser): Info.plist key names, only the keys that are set, read back leniently as Apple
// reads the plist.
extension ATSConfiguration: Codable {
    public init(from decoder: any Decoder) throws {
        self.init(propertyList: try Self.dictionary(from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        try PropertyListValue.dictionary(propertyList).encode(to: encoder)
    }

    static func dictionary(from decoder: any Decoder) throws -> [String: PropertyListValue] {
        guard let dictionary = try PropertyListValue(from: decoder).dictionaryValue else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "expected a dictionary"))
        }
        return dictionary
    }
}

extension DomainException: Codable {
    public init(from decoder: any Decoder) throws {
        self.init(propertyList: try ATSConfiguration.dictionary(from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        try PropertyListValue.dictionary(propertyList).encode(to: encoder)
    }
}

extension PinSet: Codable {
    public init(from decoder: any Decoder) throws {
        self.init(propertyList: try ATSConfiguration.dictionary(from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        try PropertyListValue.dictionary(propertyList).encode(to: encoder)
    }
}

import PropertyList

/// How Apple's code reads the values of an ATS dictionary: the one reader the loads
/// (`ATSConfiguration`, `DomainException`, `PinSet`) and the linter share, so the linter says
/// exactly what a load does with a value.
///
/// Booleans: Security-61901 `protocol/SecProtocolConfiguration.m`,
/// `sec_protocol_configuration_set_ats_overrides` (macros `ATS_VALUE_FOR_KEY` and
/// `BOOLEAN_FOR_KEY`): a value that is an NSNumber is YES when `[value isEqual:@YES]`, NO
/// otherwise; any other type is ignored (logged "must be a boolean") and the key keeps its
/// default, as if absent. NSNumber compares by value, so `<true/>`, `<integer>1</integer>` and
/// `<real>1.0</real>` are YES, and `<integer>2</integer>`, `<real>0.5</real>` are NO; the
/// string "YES" is ignored. Apple's unit tests: `SecProtocolConfigurationTest.m`,
/// `testInvalidATSDictionary` ("YES" strings ignored) and `testGarbageValueDisablesAllowsArbitraryLoads`
/// (`NSAllowsArbitraryLoads = 2` is NO).
///
/// NSPinnedDomains' NSIncludesSubdomains is read differently: `OSX/sec/Security/SecPolicy.c`,
/// `parseNSPinnedDomains`, compares the value with `kCFBooleanTrue` by identity, so only
/// `<true/>` turns it on (`<integer>1</integer>` does not).
package enum ATSValueReading: String, Sendable, Hashable, Codable {
    case yes, no
    /// Not a number: Apple ignores it and the key keeps its default (absent).
    case ignored

    /// The boolean Apple's ATS reader takes from `value` (nil: ignored, the key's default applies).
    package static func boolean(_ value: PropertyListValue?) -> Bool? {
        guard let value else { return nil }
        switch read(value) {
        case .yes: return true
        case .no: return false
        case .ignored: return nil
        }
    }

    /// `[value isEqual:@YES]` when the value is an NSNumber; `.ignored` otherwise.
    package static func read(_ value: PropertyListValue) -> ATSValueReading {
        switch value {
        case .boolean(let flag): flag ? .yes : .no
        case .integer(let number): number == 1 ? .yes : .no
        case .real(let number): number == 1 ? .yes : .no
        case .string, .data, .date, .array, .dictionary: .ignored
        }
    }

    /// NSPinnedDomains' NSIncludesSubdomains: only the boolean true (`== kCFBooleanTrue`).
    package static func isBooleanTrue(_ value: PropertyListValue?) -> Bool {
        value == .boolean(true)
    }

    /// What a load does with this boolean value, for a lint message: "ATS reads it as YES",
    /// "... as NO", "ATS ignores it: the key keeps its default".
    package static func effectSentence(_ value: PropertyListValue) -> String {
        switch read(value) {
        case .yes: "Apple's reader takes it as YES (an NSNumber equal to YES)"
        case .no: "Apple's reader takes it as NO (an NSNumber not equal to YES)"
        case .ignored: "Apple's reader ignores it (not an NSNumber): the key keeps its default, as if absent"
        }
    }

    /// One note per value Apple's reader ignores or reads as something other than its spelling
    /// suggests, among the global boolean keys and (when given) the NSExceptionDomains entry
    /// `entryKey`: what `plist explain` says beside the verdict the values produced. Not escaped.
    package static func valueNotes(_ ats: [String: PropertyListValue], entryKey: String?) -> [String] {
        var notes: [String] = []
        let globals: [ATSKey] = [.allowsArbitraryLoads, .allowsArbitraryLoadsForMedia, .allowsArbitraryLoadsInMedia,
                                 .allowsArbitraryLoadsInWebContent, .allowsLocalNetworking]
        for key in globals {
            guard let value = ats[key.name], value.kind != .boolean else { continue }
            notes.append("\(key.name) holds \(describe(value)): \(effectSentence(value))")
        }
        guard let entryKey, let entry = ats[ATSKey.exceptionDomains.name]?[entryKey]?.dictionaryValue else { return notes }
        for (name, value) in entry.sorted(by: { $0.key < $1.key }) {
            guard let key = ATSKey.named(name, in: .exceptionDomain) else { continue }
            switch key.valueType {
            case .boolean where value.kind != .boolean:
                notes.append("\(name) in the entry \"\(entryKey)\" holds \(describe(value)): \(effectSentence(value))")
            case .string where value.kind != .string:
                notes.append("\(name) in the entry \"\(entryKey)\" holds \(describe(value)): Apple's reader ignores it (not a string), so its default applies")
            default:
                break
            }
        }
        return notes
    }

    /// "the string 'YES'", "the integer 2", "a dictionary".
    static func describe(_ value: PropertyListValue) -> String {
        switch value {
        case .string(let text): "the string '\(text)'"
        case .integer, .real: "the \(value.kind.rawValue) \(value.scalarText)"
        default: value.kind.withArticle
        }
    }
}

import ATSPolicy
import PropertyList
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport
import TLSFacts

/// Static checks of an app's ATS dictionary (`atsprobe plist lint`). It works on the raw
/// property list, not on a parsed configuration, because its job is to catch what a parser
/// would silently drop: wrong types, misspelled keys, values Apple does not read.
public enum ATSLinter {
    /// Every finding for the document's ATS dictionary, in report order (key path, then rule).
    public static func lint(_ document: PropertyListDocument) -> [LintFinding] {
        var pass = LintPass()
        if document.isBareATSDictionary {
            pass.lintGlobal(document.root, at: LintKeyPath())
        } else {
            pass.lintInfoPlistRoot(document.root)
        }
        return pass.findings.sorted(by: LintFinding.reportOrder)
    }

    /// `root` is a whole Info.plist or a bare NSAppTransportSecurity dictionary.
    public static func lint(_ root: [String: PropertyListValue]) -> [LintFinding] {
        lint(PropertyListDocument(root: root))
    }
}

/// One walk over the property list, collecting findings.
struct LintPass {
    private(set) var findings: [LintFinding] = []

    mutating func add(_ rule: LintRule, at path: LintKeyPath, _ message: String, fix: String, saysATSIgnoresIt: Bool = false) {
        findings.append(LintFinding(rule, at: path, message, fix: fix, saysATSIgnoresIt: saysATSIgnoresIt))
    }

    mutating func add(_ more: [LintFinding]) { findings += more }

    // MARK: Info.plist top level

    mutating func lintInfoPlistRoot(_ root: [String: PropertyListValue]) {
        let atsName = ATSKey.appTransportSecurity.name
        let atsPath = LintKeyPath(atsName)
        for key in root.keys.sorted() where key != atsName {
            let path = LintKeyPath().appending(key)
            if ATSKey.all.contains(where: { $0.name == key }) {
                add(.misplacedKey, at: path, "\(quoted(key)) is an ATS key at the top of Info.plist; ATS reads it only inside NSAppTransportSecurity",
                    fix: "move it into the NSAppTransportSecurity dictionary")
            } else if KeySuggestion.nearest(to: key, among: [atsName]) != nil {
                add(.unknownKey, at: path, "unknown key \(quoted(key)): did you mean NSAppTransportSecurity? As written, ATS never reads it",
                    fix: "rename it to NSAppTransportSecurity")
            } else if let near = KeySuggestion.nearest(to: key, among: ATSKey.keys(in: .global).map(\.name)) {
                add(.unknownKey, at: path, "unknown key \(quoted(key)) at the top of Info.plist: did you mean \(near)? ATS never reads it here",
                    fix: "rename it to \(near) and move it into the NSAppTransportSecurity dictionary")
            }
        }
        guard let value = root[atsName] else {
            add(.noATSDictionary, at: atsPath, "no NSAppTransportSecurity dictionary: the ATS defaults apply to every connection",
                fix: "nothing to do if the defaults are what you want")
            return
        }
        guard checkType(value, expected: .dictionary, subject: quoted(atsName), at: atsPath), let ats = value.dictionaryValue else { return }
        lintGlobal(ats, at: atsPath)
    }

    // MARK: NSAppTransportSecurity

    mutating func lintGlobal(_ ats: [String: PropertyListValue], at base: LintKeyPath) {
        for (key, value) in ats.sorted(by: { $0.key < $1.key }) {
            let path = base.appending(key)
            guard let atsKey = ATSKey.named(key, in: .global) else {
                reportUnknown(key, in: .global, at: path)
                continue
            }
            guard checkType(value, expected: PropertyListValue.Kind(atsKey.valueType), subject: quoted(key), at: path) else { continue }
            switch (atsKey, value) {
            case (.exceptionDomains, .dictionary(let table)): lintDomainTable(table, table: .exceptionDomains, at: path, global: ats)
            case (.pinnedDomains, .dictionary(let table)): lintDomainTable(table, table: .pinnedDomains, at: path, global: ats)
            case (.requiresNIAPTLSPackageVersion, .string(let version)): lintNIAP(version, key: key, at: path)
            default: break
            }
        }
        lintGlobalBooleans(ats, at: base)
    }

    /// Precedence, App Store justification and defaults among the global boolean keys.
    private mutating func lintGlobalBooleans(_ ats: [String: PropertyListValue], at base: LintKeyPath) {
        let arbitrary = ATSKey.allowsArbitraryLoads
        let finer: [ATSKey] = [.allowsArbitraryLoadsForMedia, .allowsArbitraryLoadsInMedia, .allowsArbitraryLoadsInWebContent, .allowsLocalNetworking]
        // Present as Apple's reader sees it: a number (a string is ignored, as if absent).
        let finerPresent = finer.filter { booleanValue(ats[$0.name]) != nil }
        let arbitraryValue = booleanValue(ats[arbitrary.name])

        if arbitraryValue == true {
            let path = base.appending(arbitrary.name)
            if !finerPresent.isEmpty {
                let names = finerPresent.map(\.name).joined(separator: ", ")
                add(.precedenceIgnored, at: path,
                    "NSAllowsArbitraryLoads = true is ignored on iOS 10 / macOS 10.12 and later because \(names) \(finerPresent.count == 1 ? "is" : "are") present, whatever \(finerPresent.count == 1 ? "its value" : "their values"); only iOS 9 honours it",
                    fix: "remove NSAllowsArbitraryLoads, or remove \(names) if arbitrary loads are really needed")
            }
            add(.reviewJustification, at: path, ReviewJustification.arbitraryLoads, fix: ReviewJustification.arbitraryLoadsFix)
        } else if arbitraryValue == false {
            add(.redundantDefault, at: base.appending(arbitrary.name), "NSAllowsArbitraryLoads = false is the default", fix: "remove the key")
        }

        for key in finer {
            guard let value = booleanValue(ats[key.name]) else { continue }
            let path = base.appending(key.name)
            if value {
                if let text = ReviewJustification.forGlobalKey(key) { add(.reviewJustification, at: path, text, fix: ReviewJustification.globalKeyFix) }
            } else if arbitraryValue != true && key != .allowsLocalNetworking {
                // Beside NSAllowsArbitraryLoads = true a false value still matters: its presence turns that key off.
                // NSAllowsLocalNetworking = false is never the default: by Apple's code it puts
                // local names and loopback addresses back under ATS (SecProtocolConfiguration.m).
                add(.redundantDefault, at: path, "\(key.name) = false is the default", fix: "remove the key")
            }
        }
    }

    mutating func lintNIAP(_ value: String, key: String, at path: LintKeyPath) {
        let accepted = ["none", "FCP_v2.1"]
        guard !accepted.contains(value) else { return }
        let near = KeySuggestion.nearest(to: value, among: accepted)
        add(.niapValue, at: path, "\(key) = \(quoted(value)) is not a known NIAP TLS package version (\"none\" or \"FCP_v2.1\")",
            fix: near.map { "use \"\($0)\"" } ?? "use \"FCP_v2.1\" or remove the key")
    }

    // MARK: NSExceptionDomains and NSPinnedDomains

    private mutating func lintDomainTable(_ table: [String: PropertyListValue], table kind: DomainKeys.Table, at path: LintKeyPath,
                                          global: [String: PropertyListValue]) {
        let name = kind == .exceptionDomains ? ATSKey.exceptionDomains.name : ATSKey.pinnedDomains.name
        if table.isEmpty {
            add(.emptyDictionary, at: path, "\(name) is empty, so it changes nothing", fix: "remove the key or add domain entries")
            return
        }
        for (domain, value) in table.sorted(by: { $0.key < $1.key }) {
            let entryPath = path.appending(domain)
            add(DomainKeyLint(key: domain, table: kind, path: entryPath).findings())
            // SecProtocolConfiguration.m set_ats_overrides / SecPolicy.c parseNSPinnedDomains skip such an entry.
            guard checkType(value, expected: .dictionary, subject: "the entry for \(quoted(domain))", at: entryPath,
                            effect: "Apple skips it, so the domain has no entry"),
                  let entry = value.dictionaryValue else { continue }
            if kind == .exceptionDomains, let builtIn = BuiltInException.securityFramework.first(where: { $0.domain == domain }) {
                add(.builtInExceptionReplaced, at: entryPath,
                    "the entry replaces Apple's built-in exception for \(quoted(domain)) (NSIncludesSubdomains, insecure HTTP allowed, \(builtIn.minimumTLSVersion) minimum), registered for every app",
                    fix: "nothing to do if you mean to set stricter (or other) rules for this domain")
            }
            switch kind {
            case .exceptionDomains:
                let arbitraryLoads = booleanValue(global[ATSKey.allowsArbitraryLoads.name]) == true
                lintExceptionDomain(entry, domain: domain, at: entryPath, arbitraryLoadsOn: arbitraryLoads)
            case .pinnedDomains:
                lintPinnedDomain(entry, domain: domain, at: entryPath)
            }
        }
    }

    // MARK: Shared checks

    /// Reports a wrong value type; true when the type is right.
    /// `subject` names the value in the message ("'NSAllowsArbitraryLoads'", "each element of ...").
    /// For a boolean the message says what the loads do with the value (`ATSValueReading`), or
    /// `effect` when the key is read differently (NSPinnedDomains' NSIncludesSubdomains).
    mutating func checkType(_ value: PropertyListValue, expected: PropertyListValue.Kind, subject: String, at path: LintKeyPath,
                            effect: String? = nil) -> Bool {
        guard value.kind != expected else { return true }
        var message = "\(subject) must be \(expected.withArticle), found \(describe(value))"
        var ignored = false
        if let effect {
            message += ": \(effect)"
        } else if expected == .boolean {
            message += ": \(ATSValueReading.effectSentence(value))"
            ignored = ATSValueReading.read(value) == .ignored
        }
        add(.wrongType, at: path, message, fix: Self.typeFix(for: value, expected: expected), saysATSIgnoresIt: ignored)
        return false
    }

    private static func typeFix(for value: PropertyListValue, expected: PropertyListValue.Kind) -> String {
        switch expected {
        case .boolean:
            var text = value.scalarText.trimmingWhitespace().lowercased()
            // A real 1 or 0 means YES or NO as the integer does (a typed reader keeps it a real).
            if case .real(let real) = value, real == 1 || real == 0 { text = real == 1 ? "1" : "0" }
            if ["yes", "true", "1"].contains(text) { return "use <true/>" }
            if ["no", "false", "0"].contains(text) { return "use <false/>" }
            return "use <true/> or <false/>"
        case .string: return "use a <string>"
        case .dictionary: return "use a <dict>"
        case .array: return "use an <array> of <dict> entries"
        default: return "use \(expected.withArticle)"
        }
    }

    /// An unknown key, or a known key at the wrong level.
    mutating func reportUnknown(_ key: String, in scope: ATSKey.Scope, at path: LintKeyPath) {
        if let elsewhere = ATSKey.all.first(where: { $0.name == key && $0.scope != scope }) {
            add(.misplacedKey, at: path, "\(quoted(key)) belongs \(Self.place(of: elsewhere.scope)), not \(Self.place(of: scope)); here ATS ignores it",
                fix: "move it \(Self.place(of: elsewhere.scope))", saysATSIgnoresIt: true)
            return
        }
        // KeyJudgement.intendedKey: the near miss explain, check and app name too.
        if let near = KeyJudgement.intendedKey(for: key, in: scope) {
            add(.unknownKey, at: path, "unknown key \(quoted(key)): did you mean \(near)? As written, ATS ignores it", fix: "rename it to \(near)", saysATSIgnoresIt: true)
        } else if scope == .global && key.contains(".") {
            add(.unknownKey, at: path, "unknown key \(quoted(key)) directly under NSAppTransportSecurity; ATS ignores it", fix: "domain entries belong inside NSExceptionDomains", saysATSIgnoresIt: true)
        } else {
            add(.unknownKey, at: path, "unknown key \(quoted(key)) \(Self.place(of: scope)); ATS ignores it", fix: "remove it (see docs/lint.md for the valid keys)", saysATSIgnoresIt: true)
        }
    }

    static func place(of scope: ATSKey.Scope) -> String {
        switch scope {
        case .global: "directly under NSAppTransportSecurity"
        case .exceptionDomain: "inside an NSExceptionDomains entry"
        case .pinnedDomain: "inside an NSPinnedDomains entry"
        }
    }

    /// The boolean as Apple's ATS reader takes it (`ATSValueReading`: a number compared with YES;
    /// nil for any other type, which Apple ignores), so lint reasons about what the loads see.
    func booleanValue(_ value: PropertyListValue?) -> Bool? {
        ATSValueReading.boolean(value)
    }

    func quoted(_ text: String) -> String { "'\(UntrustedText.escape(text, limit: 200))'" }

    /// "the string 'YES'", "an integer (1)", "a dictionary".
    func describe(_ value: PropertyListValue) -> String {
        switch value {
        case .string(let text): return "the string \(quoted(text))"
        case .boolean, .integer, .real: return "\(value.kind.withArticle) (\(UntrustedText.escape(value.scalarText, limit: 50)))"
        default: return value.kind.withArticle
        }
    }
}

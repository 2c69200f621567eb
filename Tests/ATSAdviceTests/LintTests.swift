import Foundation
import Testing
import TestSupport
import PropertyList
import TextSupport
import TLSFacts
@testable import ATSAdvice
@testable import ATSPolicy
import ATSPolicyFixtures

/// Writes the plist to a temporary directory as XML and as binary, reads both back with
/// PropertyListFile and lints both. The two formats must give the same findings.
func lintBothFormats(_ rootContent: String) throws -> [LintFinding] {
    let directory = try TemporaryDirectory(prefix: "atsprobe-lint")
    defer { directory.remove() }

    let xmlPath = directory.path("Info.plist")
    try Data(infoPlistXML(rootContent).utf8).write(to: URL(fileURLWithPath: xmlPath))
    let xmlDocument = try PropertyListFile.read(path: xmlPath)
    #expect(xmlDocument.format == .xml)

    let binaryPath = directory.path("Info-binary.plist")
    try PropertyListFile.write(xmlDocument.root, format: .binary).write(to: URL(fileURLWithPath: binaryPath))
    let binaryDocument = try PropertyListFile.read(path: binaryPath)
    #expect(binaryDocument.format == .binary)

    let fromXML = ATSLinter.lint(xmlDocument)
    let fromBinary = ATSLinter.lint(binaryDocument)
    #expect(fromXML == fromBinary)
    return fromXML
}

@Suite("ATS linter")
struct LintTests {
    @Test("each rule fires on its trigger and stays silent on its clean case", arguments: LintCase.all)
    func ruleCase(_ lintCase: LintCase) throws {
        let findings = try lintBothFormats(lintCase.plist)
        let hits = findings.filter { $0.rule == lintCase.rule }
        if let keyPath = lintCase.keyPath, let mentions = lintCase.mentions {
            let match = hits.first { $0.keyPath == keyPath && ($0.message + " | " + $0.fix).contains(mentions) }
            #expect(match != nil, "expected \(lintCase.rule) at \(keyPath) mentioning \(mentions); got:\n\(findings.map(\.description).joined(separator: "\n"))")
            #expect(match?.severity == LintRule.withID(lintCase.rule)?.severity)
        } else {
            #expect(hits.isEmpty, "unexpected: \(hits.map(\.description))")
        }
    }

    @Test func everyRuleHasATriggeringAndASilentCase() {
        for rule in LintRule.all {
            #expect(LintCase.all.contains { $0.rule == rule.id && $0.triggers }, "no triggering case for \(rule.id)")
            #expect(LintCase.all.contains { $0.rule == rule.id && !$0.triggers }, "no silent case for \(rule.id)")
        }
        for lintCase in LintCase.all {
            #expect(LintRule.withID(lintCase.rule) != nil, "case names unknown rule \(lintCase.rule)")
        }
    }

    @Test func ruleIDsAreUniqueAndStable() {
        let ids = LintRule.all.map(\.id)
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "-" } })
    }

    @Test func findingsAreOrderedAndOneLine() throws {
        for lintCase in LintCase.all {
            let findings = try lintBothFormats(lintCase.plist)
            let ordered = findings.sorted { ($0.keyPath, $0.rule, $0.message) < ($1.keyPath, $1.rule, $1.message) }
            #expect(findings == ordered)
            for finding in findings {
                #expect(!finding.message.contains("\n") && !finding.fix.contains("\n"), "\(finding)")
                #expect(!finding.message.isEmpty && !finding.fix.isEmpty)
            }
        }
    }

    /// A plist with many mistakes at once: the whole report, in order.
    @Test func goldenReport() throws {
        let plist = "<key>CFBundleName</key><string>App</string>" + ats("""
            <key>NSAllowsArbitraryLoads</key><true/>
            <key>NSAllowsArbitraryLoadsInWebContent</key><true/>
            <key>NSExceptionDomains</key><dict>
              <key>*.Legacy.example</key><dict>
                <key>NSIncludesSubdomains</key><true/>
                <key>NSExceptionMinimumTLSVersion</key><string>1.0</string>
              </dict>
              <key>api.example.com</key><dict>
                <key>NSIncludesSubdomains</key><false/>
                <key>NSThirdPartyExceptionAllowsInsecureHTTPLoads</key><string>YES</string>
              </dict>
            </dict>
            <key>NSPinnedDomains</key><dict>
              <key>pins.example.com</key><dict>
                <key>NSPinnedCAIdentities</key><array/>
              </dict>
            </dict>
            """)
        let report = try lintBothFormats(plist).map { "\($0.severity.rawValue) \($0.rule) \($0.keyPath)" }
        #expect(report == [
            "warning precedence-ignored NSAppTransportSecurity.NSAllowsArbitraryLoads",
            "warning review-justification NSAppTransportSecurity.NSAllowsArbitraryLoads",
            "warning review-justification NSAppTransportSecurity.NSAllowsArbitraryLoadsInWebContent",
            "error domain-uppercase NSAppTransportSecurity.NSExceptionDomains.*.Legacy.example",
            "error domain-wildcard NSAppTransportSecurity.NSExceptionDomains.*.Legacy.example",
            "error tls-version-unparsed NSAppTransportSecurity.NSExceptionDomains.*.Legacy.example.NSExceptionMinimumTLSVersion",
            "info redundant-default NSAppTransportSecurity.NSExceptionDomains.api.example.com.NSIncludesSubdomains",
            "warning deprecated-key NSAppTransportSecurity.NSExceptionDomains.api.example.com.NSThirdPartyExceptionAllowsInsecureHTTPLoads",
            "error wrong-type NSAppTransportSecurity.NSExceptionDomains.api.example.com.NSThirdPartyExceptionAllowsInsecureHTTPLoads",
            "error pin-empty-identities NSAppTransportSecurity.NSPinnedDomains.pins.example.com.NSPinnedCAIdentities",
        ])
    }

    @Test func bareATSDictionaryFile() throws {
        let directory = try TemporaryDirectory(prefix: "atsprobe-lint")
        defer { directory.remove() }
        let path = directory.path("ats.plist")
        let bare = exceptions(domain("example.com", "<key>NSExceptionMinimumTLSVersion</key><string>TLSv1.4</string>"))
            .replacingOccurrences(of: "<key>NSAppTransportSecurity</key><dict>", with: "")
            .dropLast("</dict>".count)
        try Data(infoPlistXML(String(bare)).utf8).write(to: URL(fileURLWithPath: path))

        let document = try PropertyListFile.read(path: path)
        #expect(document.isBareATSDictionary)
        #expect(document.atsDictionary?["NSExceptionDomains"] != nil)
        let findings = ATSLinter.lint(document)
        #expect(findings.map(\.keyPath) == ["NSExceptionDomains.example.com.NSExceptionMinimumTLSVersion"])
        #expect(findings.map(\.rule) == ["tls-version-unparsed"])
    }

    /// The wrong-type message says what a load does with the value, by the one reader the loads
    /// use (ATSValueReading, SecProtocolConfiguration.m ATS_VALUE_FOR_KEY): 1 is YES, 2 is NO,
    /// a string is ignored; and a string NSAllowsLocalNetworking does not switch
    /// NSAllowsArbitraryLoads off, so precedence-ignored does not fire.
    @Test func wrongTypeSaysWhatTheLoadDoes() {
        func message(_ value: PropertyListValue) -> String? {
            ATSLinter.lint(["NSAppTransportSecurity": ["NSAllowsLocalNetworking": value]]).first { $0.rule == "wrong-type" }?.message
        }
        #expect(message(1)?.contains("takes it as YES") == true)
        #expect(message(2)?.contains("takes it as NO") == true)
        #expect(message("YES")?.contains("ignores it") == true)
        let stringFiner = ATSLinter.lint(["NSAppTransportSecurity": ["NSAllowsArbitraryLoads": true, "NSAllowsLocalNetworking": "YES"]])
        #expect(!stringFiner.map(\.rule).contains("precedence-ignored"))
        let numberFiner = ATSLinter.lint(["NSAppTransportSecurity": ["NSAllowsArbitraryLoads": true, "NSAllowsLocalNetworking": 0]])
        #expect(numberFiner.map(\.rule).contains("precedence-ignored"))
        // The loads agree: the string leaves NSAllowsArbitraryLoads in force, the number does not.
        #expect(ATSConfiguration(propertyList: ["NSAllowsArbitraryLoads": true, "NSAllowsLocalNetworking": "YES"]).effectiveAllowsArbitraryLoads)
        #expect(!ATSConfiguration(propertyList: ["NSAllowsArbitraryLoads": true, "NSAllowsLocalNetworking": 0]).effectiveAllowsArbitraryLoads)
    }

    /// Dictionaries built in Swift: an integer 1 is not a boolean, but Apple's reader takes it as
    /// YES (NSNumber isEqual:@YES), so the review-justification finding fires too, as for <true/>.
    @Test func rawDictionaryWithSwiftValues() {
        let withInteger = ATSLinter.lint(["NSAppTransportSecurity": ["NSAllowsArbitraryLoads": 1]])
        #expect(withInteger.map(\.rule) == ["review-justification", "wrong-type"])
        let integerType = withInteger.first { $0.rule == "wrong-type" }
        #expect(integerType?.message.contains("found an integer (1)") == true)
        #expect(integerType?.fix == "use <true/>")

        // A <real>1</real> is named as a real, and its fix is still <true/>.
        let withReal = ATSLinter.lint(["NSAppTransportSecurity": ["NSAllowsArbitraryLoads": 1.0]]).first { $0.rule == "wrong-type" }
        #expect(withReal?.message.contains("found a real (1.0)") == true)
        #expect(withReal?.fix == "use <true/>")

        let withBoolean = ATSLinter.lint(["NSAppTransportSecurity": ["NSAllowsArbitraryLoads": true]])
        #expect(withBoolean.map(\.rule) == ["review-justification"])

        let bare = ATSLinter.lint(["NSAllowsArbitraryLoads": false])
        #expect(bare.map { "\($0.rule) \($0.keyPath)" } == ["redundant-default NSAllowsArbitraryLoads"])
    }

    @Test func valueKindsSurviveBothFormats() throws {
        let directory = try TemporaryDirectory(prefix: "atsprobe-lint")
        defer { directory.remove() }
        let path = directory.path("kinds.plist")
        let content = "<key>t</key><true/><key>f</key><false/><key>one</key><integer>1</integer><key>zero</key><integer>0</integer>"
            + "<key>r</key><real>1.5</real><key>s</key><string>YES</string><key>d</key><data>AAEC</data><key>a</key><array/><key>x</key><dict/>"
            + "<key>when</key><date>2020-09-01T00:00:00Z</date>"
        try Data(infoPlistXML(content).utf8).write(to: URL(fileURLWithPath: path))
        let expected: [String: PropertyListValue.Kind] = [
            "t": .boolean, "f": .boolean, "one": .integer, "zero": .integer, "r": .real, "s": .string,
            "d": .data, "a": .array, "x": .dictionary, "when": .date,
        ]
        let xml = try PropertyListFile.read(path: path)
        let binary = try PropertyListFile.parse(PropertyListFile.write(xml.root, format: .binary), path: "memory")
        for document in [xml, binary] {
            let kinds = document.root.mapValues(\.kind)
            #expect(kinds == expected)
        }
    }

    @Test func findingJSONIsStable() throws {
        let finding = LintFinding(severity: .warning, rule: "deprecated-key", keyPath: "a.b", message: "m", fix: "f")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = String(decoding: try encoder.encode(finding), as: UTF8.self)
        #expect(json == #"{"fix":"f","keyPath":"a.b","message":"m","rule":"deprecated-key","severity":"warning"}"#)
        #expect(try JSONDecoder().decode(LintFinding.self, from: Data(json.utf8)) == finding)
    }

    @Test func severitiesAreOrdered() {
        #expect(LintFinding.Severity.info < .warning)
        #expect(LintFinding.Severity.warning < .error)
        #expect(LintFinding.Severity.allCases.max() == .error)
    }

    @Test func keysFromTheFileAreEscaped() {
        let evil = "evil\u{1B}[31m.example"
        let findings = ATSLinter.lint(["NSAppTransportSecurity": ["NSExceptionDomains": [evil: ["NSExceptionAllowsInsecureHTTPLoads": true]]]])
        #expect(!findings.isEmpty)
        for finding in findings {
            #expect(!finding.keyPath.contains("\u{1B}") && !finding.message.contains("\u{1B}"))
            #expect(finding.keyPath.hasPrefix("NSAppTransportSecurity.NSExceptionDomains.evil\\x1B[31m.example"))
        }
    }

    @Test func suggestionsUseEditDistanceIgnoringCase() {
        #expect(KeySuggestion.nearest(to: "NSAllowArbitraryLoads", among: ATSKey.keys(in: .global).map(\.name)) == "NSAllowsArbitraryLoads")
        #expect(KeySuggestion.nearest(to: "NSALLOWSLOCALNETWORKING", among: ATSKey.keys(in: .global).map(\.name)) == "NSAllowsLocalNetworking")
        #expect(KeySuggestion.nearest(to: "CFBundleIdentifier", among: ATSKey.keys(in: .global).map(\.name)) == nil)
        #expect(EditDistance.between("kitten", "sitting") == 3)
        #expect(EditDistance.between("NSAllwosArbitraryLoads", "NSAllowsArbitraryLoads") == 1)  // a swap is one edit
        #expect(EditDistance.between("ABC", "abc", ignoringCase: true) == 0)
        #expect(EditDistance.between(String(repeating: "a", count: 257), "a") == Int.max)
    }
}

import Foundation
import Testing
import PropertyList
import TLSFacts
@testable import ATSAdvice
@testable import ATSPolicy

/// ExceptionTightener: the app's dictionary against what the checked hosts need, no network.
@Suite struct PlistCheckTighteningTests {
    static let domains = "NSAppTransportSecurity.NSExceptionDomains"

    func need(_ host: String, _ requirement: HostNeed.Requirement, passes: Bool = true) -> HostNeed {
        HostNeed(host: host, requirement: requirement, appLoadPasses: passes)
    }

    func tls(_ version: String) -> HostNeed.Requirement { .exception(DomainException(minimumTLSVersion: version)) }

    func entry(_ report: TighteningReport, _ key: String) -> [String: PropertyListValue]? {
        report.tightened["NSExceptionDomains"]?[key]?.dictionaryValue
    }

    @Test func arbitraryLoadsAndALowMinimumForATLS12ServerAreBothUnnecessary() {
        let ats: [String: PropertyListValue] = [
            "NSAllowsArbitraryLoads": true,
            "NSExceptionDomains": ["api.example.com": ["NSExceptionMinimumTLSVersion": "TLSv1.0"]],
        ]
        let report = ExceptionTightener.tighten(ats, needs: [need("api.example.com", .nothing)], ruleSet: .documented)
        #expect(report.findings.map(\.kind) == [.unnecessary, .unnecessary])
        #expect(report.findings.map(\.keyPath) == [
            "NSAppTransportSecurity.NSAllowsArbitraryLoads",
            Self.domains + ".api.example.com.NSExceptionMinimumTLSVersion",
        ])
        #expect(report.findings[1].appValue == "TLSv1.0")
        #expect(report.findings[1].neededValue == "absent")
        // Nothing weakens ATS any more: the entry and NSExceptionDomains go.
        #expect(report.tightened.isEmpty)
        #expect(!report.isTight)
    }

    @Test func arbitraryLoadsForOneTLS11HostIsTooWideAndBecomesItsEntry() {
        let report = ExceptionTightener.tighten(["NSAllowsArbitraryLoads": true], needs: [
            need("old.example.com", tls("TLSv1.1")), need("new.example.com", .nothing),
        ], ruleSet: .documented)
        #expect(report.findings.first?.kind == .tooWide)
        #expect(report.findings.first?.message.contains("old.example.com needs NSExceptionMinimumTLSVersion = TLSv1.1") == true)
        #expect(report.tightened["NSAllowsArbitraryLoads"] == nil)
        #expect(entry(report, "old.example.com")?["NSExceptionMinimumTLSVersion"] == "TLSv1.1")
        #expect(entry(report, "new.example.com") == nil)
    }

    @Test func arbitraryLoadsStaysWhenAHostItGovernsIsUndecided() {
        let report = ExceptionTightener.tighten(["NSAllowsArbitraryLoads": true], needs: [
            need("down.example.com", .undecided(reason: "unreachable"), passes: false),
        ], ruleSet: .documented)
        #expect(report.isTight)
        #expect(report.tightened["NSAllowsArbitraryLoads"] == true)
        #expect(report.notes.contains(.arbitraryLoadsUndecided(hosts: ["down.example.com"])), "\(report.notes)")
    }

    @Test func ignoredArbitraryLoadsIsLeftToTheLinter() {
        let ats: [String: PropertyListValue] = ["NSAllowsArbitraryLoads": true, "NSAllowsLocalNetworking": false]
        let report = ExceptionTightener.tighten(ats, needs: [need("example.com", .nothing)], ruleSet: .documented)
        #expect(report.isTight)
        #expect(report.tightened["NSAllowsArbitraryLoads"] == true)
    }

    @Test func aStricterKeyStaysWhileTheLoadPassesAndWidensWhenItFails() {
        let ats: [String: PropertyListValue] = ["NSExceptionDomains": ["example.com": ["NSExceptionMinimumTLSVersion": "TLSv1.3"]]]
        let passing = ExceptionTightener.tighten(ats, needs: [need("example.com", .nothing, passes: true)], ruleSet: .documented)
        #expect(passing.isTight)
        #expect(NSDictionary(dictionary: passing.tightened).isEqual(to: ats))

        let failing = ExceptionTightener.tighten(ats, needs: [need("example.com", .nothing, passes: false)], ruleSet: .documented)
        #expect(failing.findings.map(\.kind) == [.insufficient])
        #expect(failing.findings.first?.appValue == "TLSv1.3")
        #expect(failing.tightened.isEmpty)
    }

    @Test func forwardSecrecyAndInsecureHTTPThatNoHostNeedsAreUnnecessary() {
        let ats: [String: PropertyListValue] = ["NSExceptionDomains": ["example.com": [
            "NSExceptionRequiresForwardSecrecy": false, "NSExceptionAllowsInsecureHTTPLoads": true,
            "NSExceptionMinimumTLSVersion": "TLSv1.1",
        ]]]
        let report = ExceptionTightener.tighten(ats, needs: [need("example.com", tls("TLSv1.1"))], ruleSet: .documented)
        #expect(Set(report.findings.map(\.keyPath)) == [
            Self.domains + ".example.com.NSExceptionRequiresForwardSecrecy",
            Self.domains + ".example.com.NSExceptionAllowsInsecureHTTPLoads",
        ])
        #expect(report.findings.allSatisfy { $0.kind == .unnecessary })
        let tightened = entry(report, "example.com")
        #expect(tightened?.count == 1)
        #expect(tightened?["NSExceptionMinimumTLSVersion"] == "TLSv1.1")
    }

    @Test func deprecatedNamesAreRewrittenAndOtherEntryKeysKept() {
        let ats: [String: PropertyListValue] = ["NSExceptionDomains": ["example.com": [
            "NSThirdPartyExceptionMinimumTLSVersion": "TLSv1.0", "NSIncludesSubdomains": true,
            "NSRequiresCertificateTransparency": true,
        ]]]
        let report = ExceptionTightener.tighten(ats, needs: [need("example.com", tls("TLSv1.1"))], ruleSet: .documented)
        #expect(report.findings.map(\.kind) == [.tooWide])
        let tightened = entry(report, "example.com")
        #expect(tightened?["NSThirdPartyExceptionMinimumTLSVersion"] == nil)
        #expect(tightened?["NSExceptionMinimumTLSVersion"] == "TLSv1.1")
        #expect(tightened?["NSIncludesSubdomains"] == true)
        #expect(tightened?["NSRequiresCertificateTransparency"] == true)
    }

    @Test func hostsUnderOneEntryNeedTheWeakestOfTheirNeeds() {
        let ats: [String: PropertyListValue] = ["NSExceptionDomains": ["example.com": [
            "NSIncludesSubdomains": true, "NSExceptionMinimumTLSVersion": "TLSv1.0", "NSExceptionRequiresForwardSecrecy": false,
        ]]]
        let report = ExceptionTightener.tighten(ats, needs: [
            need("a.example.com", tls("TLSv1.1")),
            need("b.example.com", .exception(DomainException(requiresForwardSecrecy: false))),
        ], ruleSet: .documented)
        #expect(report.findings.map(\.kind) == [.tooWide])
        #expect(report.findings.first?.neededValue == "TLSv1.1")
        let tightened = entry(report, "example.com")
        #expect(tightened?["NSExceptionMinimumTLSVersion"] == "TLSv1.1")
        #expect(tightened?["NSExceptionRequiresForwardSecrecy"] == false)
    }

    @Test func aFailingHostUnderDefaultATSGetsTheMinimalEntry() {
        let ats: [String: PropertyListValue] = ["NSAllowsArbitraryLoadsForMedia": true]
        let report = ExceptionTightener.tighten(ats, needs: [need("legacy.example.com", tls("TLSv1.1"), passes: false)], ruleSet: .documented)
        #expect(report.findings.map(\.kind) == [.insufficient])
        #expect(report.findings.first?.keyPath == Self.domains + ".legacy.example.com")
        #expect(entry(report, "legacy.example.com")?["NSExceptionMinimumTLSVersion"] == "TLSv1.1")
        #expect(report.tightened["NSAllowsArbitraryLoadsForMedia"] == true)
    }

    @Test func cleartextKeepsInsecureHTTPAndTheUnmeasuredTLSKeys() {
        let ats: [String: PropertyListValue] = ["NSExceptionDomains": ["example.com": [
            "NSExceptionAllowsInsecureHTTPLoads": true, "NSExceptionMinimumTLSVersion": "TLSv1.0",
        ]]]
        let report = ExceptionTightener.tighten(ats, needs: [need("example.com", .cleartext)], ruleSet: .documented)
        #expect(report.isTight)
    }

    @Test func entriesNoCheckedHostFallsUnderAreKeptWithANote() {
        let ats: [String: PropertyListValue] = ["NSExceptionDomains": ["other.example": ["NSExceptionMinimumTLSVersion": "TLSv1.0"]]]
        let report = ExceptionTightener.tighten(ats, needs: [need("example.com", .nothing)], ruleSet: .documented)
        #expect(report.isTight)
        #expect(report.notes.contains { $0.entryKey == "other.example" }, "\(report.notes)")
        #expect(entry(report, "other.example") != nil)
    }

    @Test func aHostOnlyApplesCodeReachesGetsAnEntryOfItsOwn() {
        let ats: [String: PropertyListValue] = ["NSExceptionDomains": ["example.test": [
            "NSIncludesSubdomains": true, "NSExceptionMinimumTLSVersion": "TLSv1.1",
        ]]]
        // Passes under Apple's code, fails under the documentation's one-label reading.
        let report = ExceptionTightener.tighten(ats, needs: [need("a.b.example.test", tls("TLSv1.1"), passes: false)], ruleSet: .documented)
        #expect(report.findings.map(\.kind) == [.insufficient])
        #expect(report.findings.first?.keyPath == Self.domains + ".a.b.example.test")
        #expect(entry(report, "a.b.example.test")?["NSExceptionMinimumTLSVersion"] == "TLSv1.1")
        #expect(entry(report, "example.test")?["NSIncludesSubdomains"] == true)
    }

    @Test func anEmptyEntryIsUnnecessaryWithoutArbitraryLoadsAndKeptBesideIt() {
        let without = ExceptionTightener.tighten(["NSExceptionDomains": ["example.com": [:]]],
                                                 needs: [need("example.com", .nothing)], ruleSet: .documented)
        #expect(without.findings.map(\.keyPath) == [Self.domains + ".example.com"])
        #expect(without.tightened.isEmpty)

        // Beside NSAllowsArbitraryLoads (kept for an undecided host) the empty entry restores default ATS.
        let beside = ExceptionTightener.tighten(
            ["NSAllowsArbitraryLoads": true, "NSExceptionDomains": ["example.com": [:]]],
            needs: [need("example.com", .nothing), need("down.example.org", .undecided(reason: "unreachable"), passes: false)], ruleSet: .documented)
        #expect(beside.isTight)
        #expect(entry(beside, "example.com") != nil)
    }

    /// Keys ATS ignores are removed with the linter's own words; "ATS ignores it" is added only
    /// when the lint message does not already say so (a flag the check sets, not a text search).
    @Test func ignoredKeysSayATSIgnoresThemOnce() throws {
        let ats: [String: PropertyListValue] = [
            "NSAllowsArbitraryLoadz": true,
            "NSExceptionDomains": [
                "https://api.example.com": ["NSExceptionMinimumTLSVersion": "TLSv1.2"],
                "api.example.com": ["NSExceptionMinimumTLSVersion": "1.2", "NSExceptionRequiresForwardSecrecy": false],
            ],
        ]
        let report = ExceptionTightener.tighten(ats, needs: [need("api.example.com", .exception(DomainException(requiresForwardSecrecy: false)))], ruleSet: .documented)
        let byPath = Dictionary(report.findings.map { ($0.keyPath, $0.message) }, uniquingKeysWith: { first, _ in first })
        let typo = try #require(byPath["NSAppTransportSecurity.NSAllowsArbitraryLoadz"])
        #expect(typo.hasPrefix("unknown key") && typo.hasSuffix("ATS ignores it"), "\(typo)")
        let version = try #require(byPath[Self.domains + ".api.example.com.NSExceptionMinimumTLSVersion"])
        #expect(version.hasPrefix("NSExceptionMinimumTLSVersion = ") && version.contains("it is ignored"), "\(version)")
        let scheme = try #require(byPath[Self.domains + ".https://api.example.com"])
        #expect(scheme.hasPrefix("ATS ignores it: domain key"), "\(scheme)")
        for message in byPath.values {
            #expect(message.components(separatedBy: "ignore").count <= 2, "said twice: \(message)")
        }
    }

    @Test func theFlagIsNotPartOfTheLintJSON() throws {
        let finding = try #require(ATSLinter.lint(["NSAppTransportSecurity": ["NSAllowsArbitraryLoadz": true]])
            .first { $0.rule == LintRule.unknownKey.id })
        #expect(finding.saysATSIgnoresIt)
        let json = String(decoding: try JSONEncoder().encode(finding), as: UTF8.self)
        #expect(!json.contains("saysATSIgnoresIt"), "\(json)")
        #expect(try JSONDecoder().decode(LintFinding.self, from: Data(json.utf8)).message == finding.message)
    }

    @Test func hostNeedFromTheSuggestion() {
        let exception = DomainException(minimumTLSVersion: "TLSv1.1")
        #expect(HostNeed(host: "h", suggestion: .none, reachable: true, appLoadPasses: true).requirement == .nothing)
        #expect(HostNeed(host: "h", suggestion: .exception(domain: "h", exception, rationale: []), reachable: true,
                         appLoadPasses: false).requirement == .exception(exception))
        guard case .undecided = HostNeed(host: "h", suggestion: .none, reachable: false, appLoadPasses: false).requirement else {
            Issue.record("an unreachable host is undecided"); return
        }
        guard case .undecided = HostNeed(host: "h", suggestion: .impossible(reason: "x"), reachable: true, appLoadPasses: false).requirement else {
            Issue.record("an impossible host is undecided"); return
        }
    }
}

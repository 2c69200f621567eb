import Foundation
import Testing
import TLSFacts
@testable import ATSPolicy

@Suite struct CodingAndNotesTests {
    @Test func configurationJSONUsesPlistKeys() throws {
        let config = ATSConfiguration(allowsLocalNetworking: true, exceptionDomains: [
            "example.com": DomainException(includesSubdomains: true, minimumTLSVersion: "TLSv1.1", requiresForwardSecrecy: false),
        ], pinnedDomains: ["example.org": PinnedDomain(caIdentities: ["abc="])])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = String(decoding: try encoder.encode(config), as: UTF8.self)
        #expect(json == #"{"NSAllowsLocalNetworking":true,"NSExceptionDomains":{"example.com":{"NSExceptionMinimumTLSVersion":"TLSv1.1","NSExceptionRequiresForwardSecrecy":false,"NSIncludesSubdomains":true}},"NSPinnedDomains":{"example.org":{"NSPinnedCAIdentities":[{"SPKI-SHA256-BASE64":"abc="}]}}}"#)
        #expect(try JSONDecoder().decode(ATSConfiguration.self, from: Data(json.utf8)) == config)
        #expect(String(decoding: try encoder.encode(ATSConfiguration.default), as: UTF8.self) == "{}")
    }

    @Test func notesExplainTheDictionary() {
        let ignored = EffectivePolicy(configuration: ATSConfiguration(allowsArbitraryLoads: true, allowsArbitraryLoadsForMedia: false),
                                      host: "example.com", ruleSet: .documented)
        #expect(ignored.notes == ["NSAllowsArbitraryLoads is ignored because NSAllowsArbitraryLoadsForMedia is present"])
        let malformed = EffectivePolicy(configuration: ATSConfiguration(exceptionDomains: ["example.com": DomainException(minimumTLSVersion: "TLSv1.4")]),
                                        host: "example.com", ruleSet: .documented)
        #expect(malformed.notes.contains { $0.contains("\"TLSv1.4\" is not a value Apple reads") })
        #expect(malformed.minimumVersion == .tls12)
        let moot = EffectivePolicy(configuration: ATSConfiguration(exceptionDomains: ["example.com": DomainException(minimumTLSVersion: "TLSv1.0")]),
                                   host: "example.com", ruleSet: .ios26)
        // Apple's code sets the minimum from the entry (SecProtocolConfiguration.m), below the default too.
        #expect(moot.notes == ["TLS 1.0 is below what the platform (ios26) offers by default (TLS 1.2); the exception sets the minimum, as Apple's code does"])
        #expect(moot.minimumVersion == .tls10)
        let ipBefore17 = EffectivePolicy(configuration: ATSConfiguration(exceptionDomains: ["10.0.0.0/8": DomainException()]),
                                         host: "10.1.2.3", ruleSet: .ios13)
        #expect(ipBefore17.notes == ["IP/CIDR exception keys are read only from iOS 17 / macOS 14 on"])
        #expect(EffectivePolicy(configuration: .default, host: "example.com", ruleSet: .documented).notes.isEmpty)
    }

    @Test func certificateTransparencyFlag() {
        let config = ATSConfiguration(exceptionDomains: ["example.com": DomainException(requiresCertificateTransparency: true)])
        #expect(EffectivePolicy(configuration: config, host: "example.com", ruleSet: .documented).requiresCertificateTransparency)
        #expect(!EffectivePolicy(configuration: .default, host: "example.com", ruleSet: .documented).requiresCertificateTransparency)
    }
}

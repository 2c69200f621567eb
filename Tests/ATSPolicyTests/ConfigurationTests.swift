import Foundation
import Testing
import TLSFacts
@testable import ATSPolicy
@testable import PropertyList

@Suite struct ConfigurationTests {
    @Test func readsEveryExceptionKey() {
        let config = ATSConfiguration(propertyList: [
            "NSAllowsArbitraryLoads": true,
            "NSAllowsLocalNetworking": 0,
            "NSExceptionDomains": [
                "example.com": [
                    "NSIncludesSubdomains": true,
                    "NSExceptionAllowsInsecureHTTPLoads": 1,
                    "NSExceptionMinimumTLSVersion": "TLSv1.1",
                    "NSExceptionRequiresForwardSecrecy": false,
                    "NSRequiresCertificateTransparency": true,
                ],
            ],
            "NSPinnedDomains": [
                "pinned.example": [
                    "NSIncludesSubdomains": true,
                    "NSPinnedCAIdentities": [["SPKI-SHA256-BASE64": "Y2FQaW4="]],
                ],
            ],
        ])
        #expect(config.allowsArbitraryLoads)
        #expect(config.allowsLocalNetworking == false)
        #expect(config.allowsArbitraryLoadsForMedia == nil)
        let entry = config.exceptionDomains["example.com"]
        #expect(entry == DomainException(includesSubdomains: true, allowsInsecureHTTPLoads: true, minimumTLSVersion: "TLSv1.1",
                                         requiresForwardSecrecy: false, requiresCertificateTransparency: true))
        #expect(entry?.effectiveMinimumTLSVersion == .tls11)
        #expect(config.pinnedDomains["pinned.example"] == PinnedDomain(includesSubdomains: true, caIdentities: ["Y2FQaW4="]))
        // Present but false, so NSAllowsArbitraryLoads is ignored.
        #expect(!config.effectiveAllowsArbitraryLoads)
    }

    @Test func readsDeprecatedNamesAndMediaSpelling() {
        let config = ATSConfiguration(propertyList: [
            "NSAllowsArbitraryLoadsInMedia": true,
            "NSExceptionDomains": [
                "old.example": [
                    "NSThirdPartyExceptionAllowsInsecureHTTPLoads": true,
                    "NSThirdPartyExceptionMinimumTLSVersion": "TLSv1.0",
                    "NSThirdPartyExceptionRequiresForwardSecrecy": false,
                ],
                "beta.example": [
                    "NSTemporaryExceptionMinimumTLSVersion": "TLSv1.1",
                    "NSExceptionMinimumTLSVersion": "TLSv1.2",
                ],
            ],
        ])
        #expect(config.allowsArbitraryLoadsForMedia == true)
        #expect(config.exceptionDomains["old.example"] == DomainException(allowsInsecureHTTPLoads: true, minimumTLSVersion: "TLSv1.0",
                                                                         requiresForwardSecrecy: false))
        // The current name wins over the deprecated one.
        #expect(config.exceptionDomains["beta.example"]?.minimumTLSVersion == "TLSv1.2")
        // Written back under current names only.
        let written = ATSConfiguration(propertyList: config.propertyList)
        #expect(written == config)
        #expect(config.propertyList["NSAllowsArbitraryLoadsForMedia"] == true)
    }

    /// SecProtocolConfiguration.m set_ats_overrides: a value of the wrong type is ignored (the key
    /// keeps its default), and an entry that is not a dictionary is no entry.
    @Test func ignoresValuesOfTheWrongType() {
        let config = ATSConfiguration(propertyList: [
            "NSAllowsArbitraryLoads": "maybe",
            "NSExceptionDomains": ["example.com": "not a dictionary", "x.example": ["NSExceptionMinimumTLSVersion": 1.2]],
        ])
        #expect(!config.allowsArbitraryLoads)
        #expect(config.exceptionDomains["example.com"] == nil)
        #expect(config.exceptionDomains["x.example"]?.minimumTLSVersion == nil)
        #expect(config.exceptionDomains["x.example"]?.effectiveMinimumTLSVersion == .tls12)
    }

    @Test(arguments: [
        ("TLSv1.0", TLSVersion.tls10), ("TLSv1.1", .tls11), ("TLSv1.2", .tls12), ("TLSv1.3", .tls13),
        ("TLSv1.4", .tls12), ("1.1", .tls12), ("tlsv1.1", .tls12), ("TLSv1.1 ", .tls12), ("TLS1.1", .tls12),
        ("TLSv1.10", .tls12), ("", .tls12), ("TLSv1.", .tls12),
    ])
    func malformedMinimumTLSVersion(text: String, expected: TLSVersion) {
        #expect(DomainException(minimumTLSVersion: text).effectiveMinimumTLSVersion == expected)
    }

    @Test func propertyListHoldsOnlyKeysSet() {
        #expect(ATSConfiguration.default.propertyList.isEmpty)
        let config = ATSConfiguration(exceptionDomains: ["example.com": DomainException(requiresForwardSecrecy: false)])
        #expect(config.propertyList == ["NSExceptionDomains": ["example.com": ["NSExceptionRequiresForwardSecrecy": false]]])
    }

    @Test func arbitraryLoadsPrecedence() {
        #expect(ATSConfiguration(allowsArbitraryLoads: true).effectiveAllowsArbitraryLoads)
        #expect(!ATSConfiguration(allowsArbitraryLoads: true, allowsArbitraryLoadsForMedia: false).effectiveAllowsArbitraryLoads)
        #expect(!ATSConfiguration(allowsArbitraryLoads: true, allowsArbitraryLoadsInWebContent: true).effectiveAllowsArbitraryLoads)
        #expect(!ATSConfiguration(allowsArbitraryLoads: true, allowsLocalNetworking: false).effectiveAllowsArbitraryLoads)
        let ignored = EffectivePolicy(configuration: ATSConfiguration(allowsArbitraryLoads: true, allowsArbitraryLoadsInWebContent: false),
                                      host: "example.com", ruleSet: .documented)
        #expect(ignored.atsApplies && ignored.atsRequired)
        let honoured = EffectivePolicy(configuration: ATSConfiguration(allowsArbitraryLoads: true), host: "example.com", ruleSet: .documented)
        #expect(honoured.exemption == .arbitraryLoads)
    }
}

@Suite struct NSDictionaryDescriptionTests {
    @Test func emptyDictionary() {
        #expect(ATSConfiguration.default.nsDictionaryDescription() == "{\n}")
    }

    @Test func allowAllLoads() {
        #expect(ATSConfiguration(allowsArbitraryLoads: true).nsDictionaryDescription() == "{\n    NSAllowsArbitraryLoads = true;\n}")
    }

    @Test func tlsException() {
        let config = ATSConfiguration(exceptionDomains: ["example.com": DomainException(minimumTLSVersion: "TLSv1.2")])
        #expect(config.nsDictionaryDescription() == """
            {
                NSExceptionDomains =     {
                    "example.com" =         {
                        NSExceptionMinimumTLSVersion = "TLSv1.2";
                    };
                };
            }
            """)
    }

    @Test func allThreeKeysSorted() {
        let config = ATSConfiguration(exceptionDomains: ["localhost": DomainException(
            allowsInsecureHTTPLoads: true, minimumTLSVersion: "TLSv1.0", requiresForwardSecrecy: false)])
        #expect(config.nsDictionaryDescription() == """
            {
                NSExceptionDomains =     {
                    localhost =         {
                        NSExceptionAllowsInsecureHTTPLoads = true;
                        NSExceptionMinimumTLSVersion = "TLSv1.0";
                        NSExceptionRequiresForwardSecrecy = false;
                    };
                };
            }
            """)
    }

    @Test func quotingRules() {
        #expect(NSDictionaryDescription.quoted("abc_XYZ09") == "abc_XYZ09")
        #expect(NSDictionaryDescription.quoted("") == "\"\"")
        #expect(NSDictionaryDescription.quoted("a-b") == "\"a-b\"")
        #expect(NSDictionaryDescription.quoted("a b") == "\"a b\"")
        #expect(NSDictionaryDescription.quoted("say \"hi\"\\\n") == "\"say \\\"hi\\\"\\\\\\n\"")
        #expect(NSDictionaryDescription.quoted("caf\u{E9}") == "\"caf\\U00e9\"")
    }

    @Test func arraysAndNestedLevels() {
        let config = ATSConfiguration(pinnedDomains: ["example.org": PinnedDomain(leafIdentities: ["abc="])])
        #expect(config.nsDictionaryDescription() == """
            {
                NSPinnedDomains =     {
                    "example.org" =         {
                        NSPinnedLeafIdentities =             (
                                            {
                                "SPKI-SHA256-BASE64" = "abc=";
                            }
                        );
                    };
                };
            }
            """)
        #expect(NSDictionaryDescription.render(.array([])) == "(\n)")
        #expect(NSDictionaryDescription.render(["a", "b c"]) == "(\n    a,\n    \"b c\"\n)")
    }
}

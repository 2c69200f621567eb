import Testing
import TLSFacts
@testable import ATSPolicy
import ATSPolicyFixtures

@Suite struct NSCurlMatrixTests {
    @Test func sectionsAndTitlesInOrder() {
        let tests = NSCurlMatrix.tests(host: "example.com")
        #expect(tests.count == 16)
        #expect(tests.map(\.title) == [
            "ATS Default Connection", "Allow All Loads",
            "TLSv1.3", "TLSv1.2", "TLSv1.1", "TLSv1.0",
            "Disabling Perfect Forward Secrecy",
            "Disabling Perfect Forward Secrecy and Allowing Insecure HTTP",
            "TLSv1.3 with PFS disabled", "TLSv1.2 with PFS disabled", "TLSv1.1 with PFS disabled", "TLSv1.0 with PFS disabled",
            "TLSv1.3 with PFS disabled and insecure HTTP allowed", "TLSv1.2 with PFS disabled and insecure HTTP allowed",
            "TLSv1.1 with PFS disabled and insecure HTTP allowed", "TLSv1.0 with PFS disabled and insecure HTTP allowed",
        ])
        var sections: [String] = []
        for test in tests where sections.last != test.section { sections.append(test.section) }
        #expect(sections == [
            "Default ATS Secure Connection", "Allowing Arbitrary Loads", "Configuring TLS exceptions for example.com",
            "Configuring PFS exceptions for example.com", "Configuring PFS exceptions and allowing insecure HTTP for example.com",
            "Configuring TLS exceptions with PFS disabled for example.com",
            "Configuring TLS exceptions with PFS disabled and insecure HTTP allowed for example.com",
        ])
    }

    @Test func dictionaries() {
        let tests = NSCurlMatrix.tests(host: "example.com")
        #expect(tests[0].configuration.nsDictionaryDescription() == "{\n}")
        #expect(tests[1].configuration.nsDictionaryDescription() == "{\n    NSAllowsArbitraryLoads = true;\n}")
        #expect(tests[4].configuration.nsDictionaryDescription() == """
            {
                NSExceptionDomains =     {
                    "example.com" =         {
                        NSExceptionMinimumTLSVersion = "TLSv1.1";
                    };
                };
            }
            """)
        #expect(tests[6].configuration.nsDictionaryDescription() == """
            {
                NSExceptionDomains =     {
                    "example.com" =         {
                        NSExceptionRequiresForwardSecrecy = false;
                    };
                };
            }
            """)
        #expect(tests[7].configuration.nsDictionaryDescription() == """
            {
                NSExceptionDomains =     {
                    "example.com" =         {
                        NSExceptionAllowsInsecureHTTPLoads = true;
                        NSExceptionRequiresForwardSecrecy = false;
                    };
                };
            }
            """)
        #expect(tests[8].configuration.exceptionDomains["example.com"]
                == DomainException(minimumTLSVersion: "TLSv1.3", requiresForwardSecrecy: false))
        #expect(tests[15].configuration.nsDictionaryDescription() == """
            {
                NSExceptionDomains =     {
                    "example.com" =         {
                        NSExceptionAllowsInsecureHTTPLoads = true;
                        NSExceptionMinimumTLSVersion = "TLSv1.0";
                        NSExceptionRequiresForwardSecrecy = false;
                    };
                };
            }
            """)
        #expect(Set(tests.map(\.configuration)).count == 16)
    }

    @Test func distinctOffers() {
        // Sixteen tests need far fewer handshakes: identical offers are made once.
        for ruleSet in RuleSet.all {
            let offers = Set(NSCurlMatrix.tests(host: "example.com").map {
                EffectivePolicy(configuration: $0.configuration, host: "example.com", ruleSet: ruleSet).clientOffer(ruleSet: ruleSet)
            })
            // Every rule set honours TLSv1.0/1.1 exceptions (iOS 26 too), so every set needs 12.
            #expect(offers.count == 12, "\(ruleSet.id)")
        }
    }

    @Test func modernServerPassesAllButNothing() {
        let server = SimulatedServer(versions: [.tls12, .tls13], suites: [suite(0x1301), suite(0xC02F)])
        #expect(server.passing(ruleSet: .documented).count == 16)
        let tls12Only = SimulatedServer(versions: [.tls12], suites: [suite(0xC02F)])
        let failing = tls12Only.diagnose(ruleSet: .documented).filter { !$0.1.passed }.map(\.0.title)
        #expect(failing == ["TLSv1.3", "TLSv1.3 with PFS disabled", "TLSv1.3 with PFS disabled and insecure HTTP allowed"])
    }
}

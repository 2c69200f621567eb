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

    /// Each test's role, in nscurl's order, with its title and CSV column: a role changed or
    /// moved without its title or column (or the other way round) fails here, and each test's
    /// dictionary is its role's own.
    @Test func rolesInOrder() {
        func entry(_ minimum: TLSVersion?, pfsOff: Bool = false, http: Bool = false) -> DiagnosticRole {
            .exception(ExceptionKeys(minimum: minimum, forwardSecrecyOff: pfsOff, insecureHTTP: http))
        }
        let expected: [(role: DiagnosticRole, title: String, column: String)] = [
            (.defaultConnection, "ATS Default Connection", "default"),
            (.allowAllLoads, "Allow All Loads", "allow_all_loads"),
            (entry(.tls13), "TLSv1.3", "tls13"),
            (entry(.tls12), "TLSv1.2", "tls12"),
            (entry(.tls11), "TLSv1.1", "tls11"),
            (entry(.tls10), "TLSv1.0", "tls10"),
            (entry(nil, pfsOff: true), "Disabling Perfect Forward Secrecy", "no_pfs"),
            (entry(nil, pfsOff: true, http: true), "Disabling Perfect Forward Secrecy and Allowing Insecure HTTP", "no_pfs_insecure_http"),
            (entry(.tls13, pfsOff: true), "TLSv1.3 with PFS disabled", "tls13_no_pfs"),
            (entry(.tls12, pfsOff: true), "TLSv1.2 with PFS disabled", "tls12_no_pfs"),
            (entry(.tls11, pfsOff: true), "TLSv1.1 with PFS disabled", "tls11_no_pfs"),
            (entry(.tls10, pfsOff: true), "TLSv1.0 with PFS disabled", "tls10_no_pfs"),
            (entry(.tls13, pfsOff: true, http: true), "TLSv1.3 with PFS disabled and insecure HTTP allowed", "tls13_no_pfs_insecure_http"),
            (entry(.tls12, pfsOff: true, http: true), "TLSv1.2 with PFS disabled and insecure HTTP allowed", "tls12_no_pfs_insecure_http"),
            (entry(.tls11, pfsOff: true, http: true), "TLSv1.1 with PFS disabled and insecure HTTP allowed", "tls11_no_pfs_insecure_http"),
            (entry(.tls10, pfsOff: true, http: true), "TLSv1.0 with PFS disabled and insecure HTTP allowed", "tls10_no_pfs_insecure_http"),
        ]
        let tests = NSCurlMatrix.tests(host: "example.com")
        #expect(tests.map(\.role) == expected.map(\.role))
        #expect(tests.map(\.title) == expected.map(\.title))
        #expect(NSCurlMatrix.roles == expected.map(\.role))
        #expect(NSCurlMatrix.titles == expected.map(\.title))
        #expect(NSCurlMatrix.columnNames == expected.map(\.column))
        #expect(NSCurlMatrix.count == expected.count)
        #expect(Set(NSCurlMatrix.roles).count == NSCurlMatrix.count)
        for test in tests {
            #expect(test.configuration == test.role.configuration(host: "example.com"), "\(test.title)")
            #expect(NSCurlMatrix.role(titled: test.title) == test.role, "\(test.title)")
        }
        #expect(NSCurlMatrix.role(titled: "TLSv1.2 with insecure HTTP allowed") == nil)
        // The HTML report's column heads, from the role.
        #expect(NSCurlMatrix.roles.map(\.shortTitle) == [
            "Default", "All loads", "1.3", "1.2", "1.1", "1.0", "No PFS", "No PFS, HTTP", "1.3 no PFS", "1.2 no PFS", "1.1 no PFS",
            "1.0 no PFS", "1.3 no PFS, HTTP", "1.2 no PFS, HTTP", "1.1 no PFS, HTTP", "1.0 no PFS, HTTP",
        ])
    }

    /// The advisor's candidate entries are every combination of the keys nscurl's tests set
    /// (the minimums below ATS's own, PFS off, insecure HTTP); those nscurl does not run are the
    /// runner's supplementary tests, so every candidate is tested.
    @Test func candidatesAndSupplementaryTestsComeFromTheMatrix() {
        let candidates = NSCurlMatrix.candidateExceptions
        #expect(candidates.count == 11)
        #expect(Set(candidates.compactMap(\.minimum)) == [.tls11, .tls10])
        #expect(candidates.allSatisfy { $0.onlyRelaxes && $0.count > 0 })
        let supplementary = NSCurlMatrix.supplementaryTests(host: "example.com")
        #expect(supplementary.map(\.role) == [nil, TLSVersion.tls11, .tls10].map { .exception(ExceptionKeys(minimum: $0, insecureHTTP: true)) })
        #expect(supplementary.map(\.title) == ["Allowing Insecure HTTP", "TLSv1.1 with insecure HTTP allowed", "TLSv1.0 with insecure HTTP allowed"])
        let tested = Set(NSCurlMatrix.roles + supplementary.map(\.role))
        for keys in candidates { #expect(tested.contains(.exception(keys)), "\(keys)") }
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
        #expect(Set(tests.map(\.configuration)).count == NSCurlMatrix.count)
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
        #expect(server.passing(ruleSet: .documented).count == NSCurlMatrix.count)
        let tls12Only = SimulatedServer(versions: [.tls12], suites: [suite(0xC02F)])
        let failing = tls12Only.diagnose(ruleSet: .documented).filter { !$0.1.passed }.map(\.0.title)
        #expect(failing == ["TLSv1.3", "TLSv1.3 with PFS disabled", "TLSv1.3 with PFS disabled and insecure HTTP allowed"])
    }
}

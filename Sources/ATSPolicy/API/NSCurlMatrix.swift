import TLSFacts

/// One nscurl --ats-diagnostics test: its section, its title, and the ATS dictionary it loads with.
public struct DiagnosticTest: Sendable, Hashable, Codable {
    public var section: String
    public var title: String
    public var configuration: ATSConfiguration

    public init(section: String, title: String, configuration: ATSConfiguration) {
        self.section = section
        self.title = title
        self.configuration = configuration
    }
}

/// nscurl's 16 tests, in nscurl's order, with nscurl's section and test titles (ats-reference 4).
package enum NSCurlMatrix {
    /// The tests' titles, in nscurl's order (they name no host): the one list the reports'
    /// matrix columns come from; nothing else counts the tests.
    package static let titles: [String] = tests(host: "").map(\.title)

    /// Each test as a CSV column name (`default`, `allow_all_loads`, `tls13`, `no_pfs`,
    /// `tls12_no_pfs_insecure_http`...), derived from its dictionary, in the same order.
    package static let columnNames: [String] = tests(host: "h").map { test in
        if test.configuration.allowsArbitraryLoads { return "allow_all_loads" }
        guard let exception = test.configuration.exceptionDomains["h"] else { return "default" }
        var parts: [String] = []
        if let version = exception.minimumTLSVersion { parts.append("tls" + version.filter(\.isNumber)) }
        if exception.requiresForwardSecrecy == false { parts.append("no_pfs") }
        if exception.allowsInsecureHTTPLoads { parts.append("insecure_http") }
        return parts.joined(separator: "_")
    }

    /// The versions of the TLS-exception tests, in nscurl's order.
    package static let versions: [TLSVersion] = [.tls13, .tls12, .tls11, .tls10]

    package static func tests(host: String) -> [DiagnosticTest] {
        func exception(_ version: TLSVersion?, pfsOff: Bool = false, insecureHTTP: Bool = false) -> ATSConfiguration {
            ATSConfiguration(exceptionDomains: [DomainKeys.key(for: host, in: .exceptionDomains): DomainException(
                allowsInsecureHTTPLoads: insecureHTTP, minimumTLSVersion: version?.plistName,
                requiresForwardSecrecy: pfsOff ? false : nil)])
        }
        var tests = [
            DiagnosticTest(section: "Default ATS Secure Connection", title: "ATS Default Connection", configuration: .default),
            DiagnosticTest(section: "Allowing Arbitrary Loads", title: "Allow All Loads",
                           configuration: ATSConfiguration(allowsArbitraryLoads: true)),
        ]
        for version in versions {
            tests.append(DiagnosticTest(section: "Configuring TLS exceptions for \(host)", title: version.plistName,
                                        configuration: exception(version)))
        }
        tests.append(DiagnosticTest(section: "Configuring PFS exceptions for \(host)", title: "Disabling Perfect Forward Secrecy",
                                    configuration: exception(nil, pfsOff: true)))
        tests.append(DiagnosticTest(section: "Configuring PFS exceptions and allowing insecure HTTP for \(host)",
                                    title: "Disabling Perfect Forward Secrecy and Allowing Insecure HTTP",
                                    configuration: exception(nil, pfsOff: true, insecureHTTP: true)))
        for version in versions {
            tests.append(DiagnosticTest(section: "Configuring TLS exceptions with PFS disabled for \(host)",
                                        title: "\(version.plistName) with PFS disabled",
                                        configuration: exception(version, pfsOff: true)))
        }
        for version in versions {
            tests.append(DiagnosticTest(section: "Configuring TLS exceptions with PFS disabled and insecure HTTP allowed for \(host)",
                                        title: "\(version.plistName) with PFS disabled and insecure HTTP allowed",
                                        configuration: exception(version, pfsOff: true, insecureHTTP: true)))
        }
        return tests
    }
}

import TLSFacts

/// What a diagnostic test asks, as a value: code finds a test by its role (the default
/// connection, Allow All Loads, an entry with these keys), never by its place in the list, and
/// the test's dictionary and CSV column name are derived from it.
public enum DiagnosticRole: Sendable, Hashable, Codable {
    /// Default ATS: no dictionary (nscurl's "ATS Default Connection").
    case defaultConnection
    /// NSAllowsArbitraryLoads = YES (nscurl's "Allow All Loads").
    case allowAllLoads
    /// An NSExceptionDomains entry for the host with these keys.
    case exception(ExceptionKeys)

    /// The dictionary the test loads `host` with.
    public func configuration(host: String) -> ATSConfiguration {
        switch self {
        case .defaultConnection: return .default
        case .allowAllLoads: return ATSConfiguration(allowsArbitraryLoads: true)
        case .exception(let keys):
            return ATSConfiguration(exceptionDomains: [DomainKeys.key(for: host, in: .exceptionDomains): keys.exception])
        }
    }

    /// The test's CSV column name (`default`, `allow_all_loads`, `tls13`, `no_pfs`,
    /// `tls12_no_pfs_insecure_http`...): a contract (docs/reports.md), never renamed.
    public var columnName: String {
        switch self {
        case .defaultConnection: return "default"
        case .allowAllLoads: return "allow_all_loads"
        case .exception(let keys):
            var parts: [String] = []
            if let version = keys.minimum { parts.append("tls" + version.plistName.filter(\.isNumber)) }
            if keys.forwardSecrecyOff { parts.append("no_pfs") }
            if keys.insecureHTTP { parts.append("insecure_http") }
            return parts.joined(separator: "_")
        }
    }

    /// The test's title in nscurl's words ("ATS Default Connection", "TLSv1.1 with PFS
    /// disabled", "Disabling Perfect Forward Secrecy and Allowing Insecure HTTP").
    public var title: String {
        switch self {
        case .defaultConnection: return "ATS Default Connection"
        case .allowAllLoads: return "Allow All Loads"
        case .exception(let keys):
            guard let minimum = keys.minimum?.plistName else {
                switch (keys.forwardSecrecyOff, keys.insecureHTTP) {
                case (true, true): return "Disabling Perfect Forward Secrecy and Allowing Insecure HTTP"
                case (true, false): return "Disabling Perfect Forward Secrecy"
                case (false, true): return "Allowing Insecure HTTP"
                case (false, false): return "No Exception Keys"
                }
            }
            let with = [keys.forwardSecrecyOff ? "PFS disabled" : nil, keys.insecureHTTP ? "insecure HTTP allowed" : nil].compactMap { $0 }
            return with.isEmpty ? minimum : minimum + " with " + with.joined(separator: " and ")
        }
    }

    /// The title in a few characters, for a table's column head ("Default", "1.2 no PFS, HTTP").
    public var shortTitle: String {
        switch self {
        case .defaultConnection: return "Default"
        case .allowAllLoads: return "All loads"
        case .exception(let keys):
            var text = keys.minimum.map { $0.plistName.replacing("TLSv", with: "") } ?? ""
            if keys.forwardSecrecyOff { text += text.isEmpty ? "No PFS" : " no PFS" }
            if keys.insecureHTTP { text += text.isEmpty ? "HTTP" : ", HTTP" }
            return text
        }
    }
}

/// The keys of one NSExceptionDomains entry a test (or the advisor) uses.
public struct ExceptionKeys: Sendable, Hashable, Codable {
    /// NSExceptionMinimumTLSVersion; nil: not set (ATS's own minimum).
    public var minimum: TLSVersion?
    /// NSExceptionRequiresForwardSecrecy = NO.
    public var forwardSecrecyOff: Bool
    /// NSExceptionAllowsInsecureHTTPLoads = YES.
    public var insecureHTTP: Bool

    public init(minimum: TLSVersion? = nil, forwardSecrecyOff: Bool = false, insecureHTTP: Bool = false) {
        self.minimum = minimum
        self.forwardSecrecyOff = forwardSecrecyOff
        self.insecureHTTP = insecureHTTP
    }

    /// The entry.
    public var exception: DomainException {
        DomainException(allowsInsecureHTTPLoads: insecureHTTP, minimumTLSVersion: minimum?.plistName,
                        requiresForwardSecrecy: forwardSecrecyOff ? false : nil)
    }

    /// How many keys the entry sets.
    public var count: Int { (minimum == nil ? 0 : 1) + (forwardSecrecyOff ? 1 : 0) + (insecureHTTP ? 1 : 0) }

    /// Whether every key the entry sets relaxes ATS: no minimum, or one below ATS's own
    /// (`DomainException.effectiveMinimumTLSVersion` of an entry without the key).
    public var onlyRelaxes: Bool { minimum.map { $0 < DomainException().effectiveMinimumTLSVersion } ?? true }
}

/// One diagnostic test: its role, nscurl's section and title, and the ATS dictionary it loads
/// with (derived from the role, so the two never disagree).
public struct DiagnosticTest: Sendable, Hashable, Codable {
    public let role: DiagnosticRole
    public let section: String
    public let title: String
    public let configuration: ATSConfiguration

    /// The test `role` for `host`; `title` defaults to the role's own.
    public init(role: DiagnosticRole, section: String, title: String? = nil, host: String) {
        self.role = role
        self.section = section
        self.title = title ?? role.title
        configuration = role.configuration(host: host)
    }
}

/// nscurl's 16 tests, in nscurl's order, with nscurl's section and test titles (ats-reference 4).
/// The one list: the reports' columns, the CSV column names, the advisor's candidate entries,
/// the runner's supplementary tests and the help's count all come from it.
package enum NSCurlMatrix {
    /// The versions of the TLS-exception tests, in nscurl's order.
    package static let versions: [TLSVersion] = [.tls13, .tls12, .tls11, .tls10]

    /// Each test's role and its section (`host` stands for the host's name), in nscurl's order.
    static let entries: [(role: DiagnosticRole, section: String)] = {
        func tls(_ version: TLSVersion?, pfsOff: Bool = false, insecureHTTP: Bool = false) -> DiagnosticRole {
            .exception(ExceptionKeys(minimum: version, forwardSecrecyOff: pfsOff, insecureHTTP: insecureHTTP))
        }
        var entries: [(role: DiagnosticRole, section: String)] = [
            (.defaultConnection, "Default ATS Secure Connection"),
            (.allowAllLoads, "Allowing Arbitrary Loads"),
        ]
        entries += versions.map { (tls($0), "Configuring TLS exceptions for host") }
        entries.append((tls(nil, pfsOff: true), "Configuring PFS exceptions for host"))
        entries.append((tls(nil, pfsOff: true, insecureHTTP: true), "Configuring PFS exceptions and allowing insecure HTTP for host"))
        entries += versions.map { (tls($0, pfsOff: true), "Configuring TLS exceptions with PFS disabled for host") }
        entries += versions.map {
            (tls($0, pfsOff: true, insecureHTTP: true), "Configuring TLS exceptions with PFS disabled and insecure HTTP allowed for host")
        }
        return entries
    }()

    /// nscurl's tests for `host`, in nscurl's order.
    package static func tests(host: String) -> [DiagnosticTest] {
        entries.map { entry in
            let section = entry.section.hasSuffix(" for host") ? String(entry.section.dropLast(4)) + host : entry.section
            return DiagnosticTest(role: entry.role, section: section, host: host)
        }
    }

    /// The tests' roles, in nscurl's order.
    package static let roles: [DiagnosticRole] = entries.map(\.role)

    /// The tests' titles, in nscurl's order (they name no host): the reports' matrix columns.
    package static let titles: [String] = roles.map(\.title)

    /// Each test as a CSV column name, in the same order (`DiagnosticRole.columnName`).
    package static let columnNames: [String] = roles.map(\.columnName)

    /// How many tests nscurl runs (what the help says).
    package static var count: Int { entries.count }

    /// The role of the test titled `title` (a record read from a file names its tests by title);
    /// nil for a title that is not nscurl's.
    package static func role(titled title: String) -> DiagnosticRole? { byTitle[title] }

    private static let byTitle: [String: DiagnosticRole] =
        Dictionary(roles.map { ($0.title, $0) }, uniquingKeysWith: { first, _ in first })

    /// Every NSExceptionDomains entry the advisor may suggest: each combination of the keys
    /// nscurl's tests set (their minimums that relax ATS, PFS off, insecure HTTP), at least one.
    package static let candidateExceptions: [ExceptionKeys] = {
        var minimums: [TLSVersion?] = [nil]
        for case .exception(let keys) in roles where keys.onlyRelaxes {
            if let minimum = keys.minimum, !minimums.contains(minimum) { minimums.append(minimum) }
        }
        var candidates: [ExceptionKeys] = []
        for minimum in minimums {
            for pfsOff in [false, true] {
                for insecureHTTP in [false, true] where minimum != nil || pfsOff || insecureHTTP {
                    candidates.append(ExceptionKeys(minimum: minimum, forwardSecrecyOff: pfsOff, insecureHTTP: insecureHTTP))
                }
            }
        }
        return candidates
    }()

    /// The candidate entries nscurl does not test (insecure HTTP without PFS off), run beside
    /// its tests so the advisor never switches PFS off needlessly; not shown.
    package static func supplementaryTests(host: String) -> [DiagnosticTest] {
        candidateExceptions.filter { !roles.contains(.exception($0)) }.map {
            DiagnosticTest(role: .exception($0), section: "atsprobe: an entry nscurl does not test", host: host)
        }
    }
}

import TLSFacts

/// The ATS rules as one OS release (or one source) has them. Everything that differs between
/// releases, or between Apple's documentation and Apple's code, is a field here: the rest of
/// the engine reads these values instead of branching on a release.
public struct RuleSet: Sendable, Hashable, Identifiable, CustomStringConvertible {
    /// The name used on the command line (`--rules ios15.4`).
    public var id: String
    public var title: String
    /// One paragraph: which sources the set follows and how it differs from the others.
    public var summary: String
    /// TLS 1.3 suites ATS accepts.
    public var tls13Suites: [CipherSuite]
    /// The ATS forward-secret group for TLS 1.2 and earlier.
    public var forwardSecretSuites: [CipherSuite]
    /// Suites added by NSExceptionRequiresForwardSecrecy = NO.
    public var nonForwardSecretSuites: [CipherSuite]
    /// What the client offers with ATS off (TLS 1.3 suites included).
    public var platformSuites: [CipherSuite]
    /// The lowest protocol the client speaks at all, ATS or not.
    public var platformMinimumVersion: TLSVersion
    /// The highest protocol the client speaks.
    public var platformMaximumVersion: TLSVersion
    /// Since iOS 17: IP addresses are subject to ATS and IP/CIDR exception keys are read.
    public var ipAddressesSubjectToATS: Bool
    /// Apple's documentation: NSExceptionRequiresForwardSecrecy = NO also drops the leaf key-size check.
    public var forwardSecrecyExceptionDropsKeySizeCheck: Bool
    /// iOS 13 certificate rules (SAN only, EKU, 825 days, RSA 2048, no SHA-1) in default trust evaluation.
    public var appliesIOS13CertificateRules: Bool

    public init(id: String, title: String, summary: String, tls13Suites: [CipherSuite], forwardSecretSuites: [CipherSuite],
                nonForwardSecretSuites: [CipherSuite], platformSuites: [CipherSuite], platformMinimumVersion: TLSVersion,
                platformMaximumVersion: TLSVersion = .tls13, ipAddressesSubjectToATS: Bool,
                forwardSecrecyExceptionDropsKeySizeCheck: Bool, appliesIOS13CertificateRules: Bool) {
        self.id = id
        self.title = title
        self.summary = summary
        self.tls13Suites = tls13Suites
        self.forwardSecretSuites = forwardSecretSuites
        self.nonForwardSecretSuites = nonForwardSecretSuites
        self.platformSuites = platformSuites
        self.platformMinimumVersion = platformMinimumVersion
        self.platformMaximumVersion = platformMaximumVersion
        self.ipAddressesSubjectToATS = ipAddressesSubjectToATS
        self.forwardSecrecyExceptionDropsKeySizeCheck = forwardSecrecyExceptionDropsKeySizeCheck
        self.appliesIOS13CertificateRules = appliesIOS13CertificateRules
    }

    public var description: String { id }

    /// TLS 1.3 suites plus the forward-secret group: what an ATS-required connection may use.
    public var atsSuites: [CipherSuite] { tls13Suites + forwardSecretSuites }

    /// The default: Apple's documented suite list, current behaviour otherwise.
    public static let documented = RuleSet(
        id: "documented",
        title: "Documented ATS rules",
        summary: "Apple's published requirements: the 11-suite forward-secret list and 6 TLS_RSA suites; "
            + "the platform offer is the iOS 12.2-15.3 list (it holds every documented suite), TLS 1.0 the platform minimum; "
            + "IP addresses are subject to ATS as on iOS 17 and later.",
        tls13Suites: SuiteTables.tls13,
        forwardSecretSuites: SuiteTables.documentedForwardSecret,
        nonForwardSecretSuites: SuiteTables.documentedNonForwardSecret,
        platformSuites: SuiteTables.platform2019,
        platformMinimumVersion: .tls10,
        ipAddressesSubjectToATS: true,
        forwardSecrecyExceptionDropsKeySizeCheck: true,
        appliesIOS13CertificateRules: true)

    /// Apple's Security code since Security-60158 (iOS 15.4 / macOS 12.3, spring 2022).
    public static let appleCode2022 = RuleSet(
        id: "ios15.4",
        title: "iOS 15.4 - 18 / macOS 12.3 - 15 (Apple's Security code)",
        summary: "The suite groups of Security-60158's SecProtocolInternal.h: 10 forward-secret suites "
            + "(CHACHA20 and ECDHE_RSA_AES_256_CBC_SHA in, every CBC_SHA256/SHA384 suite out) and 4 TLS_RSA suites; "
            + "the platform offer is the iOS 15.4-26 list, TLS 1.0 the platform minimum.",
        tls13Suites: SuiteTables.tls13,
        forwardSecretSuites: SuiteTables.appleCode2022ForwardSecret,
        nonForwardSecretSuites: SuiteTables.appleCode2022NonForwardSecret,
        platformSuites: SuiteTables.platform2022,
        platformMinimumVersion: .tls10,
        ipAddressesSubjectToATS: true,
        forwardSecrecyExceptionDropsKeySizeCheck: true,
        appliesIOS13CertificateRules: true)

    /// iOS 26 / macOS 26 (apps built with the 2025 SDKs): TLS 1.0 and 1.1 are not spoken at all.
    public static let ios26: RuleSet = {
        var set = RuleSet.appleCode2022
        set.id = "ios26"
        set.title = "iOS 26 / macOS 26"
        set.summary = "As ios15.4, but the platform minimum is TLS 1.2: TLS 1.0 and 1.1 are not offered even with ATS off, "
            + "so a TLS 1.0 server fails Allow All Loads with -9836."
        set.platformMinimumVersion = .tls12
        return set
    }()

    /// Before iOS 17 / macOS 14: the documented rules, but connections to IP addresses are not
    /// subject to ATS and IP/CIDR exception keys are not read.
    public static let beforeIOS17: RuleSet = {
        var set = RuleSet.documented
        set.id = "ios16"
        set.title = "Before iOS 17 / macOS 14"
        set.summary = "The documented rules, but IP addresses are not subject to ATS and IP/CIDR exception keys are ignored."
        set.ipAddressesSubjectToATS = false
        return set
    }()

    public static let all: [RuleSet] = [.documented, .appleCode2022, .ios26, .beforeIOS17]

    public static func named(_ id: String) -> RuleSet? {
        all.first { $0.id == id.lowercased() }
    }
}

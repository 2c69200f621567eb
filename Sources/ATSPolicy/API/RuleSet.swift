import TLSFacts

/// The ATS rules as one OS release (or one source) has them. Everything that differs between
/// releases, or between Apple's documentation and Apple's code, is a field here: the rest of
/// the engine reads these values instead of branching on a release.
public struct RuleSet: Sendable, Hashable, Identifiable, CustomStringConvertible {
    /// The name used on the command line (`--rules ios15.4`): the first release the set covers
    /// (`releases`), or `documented`. `--rules` also takes any release (`resolve(_:)`).
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
    /// supported_groups as the release sends them, in order. Groups OpenSSL 3.0 cannot offer
    /// (X25519MLKEM768) stay in the data; the probe leaves them out and says so.
    public var groups: [NamedGroup]
    /// signature_algorithms as the release sends them, in order.
    public var signatureSchemes: [SignatureScheme]
    /// ALPN as the release sends it.
    public var alpn: [String]
    /// Apple's code (`sec_protocol_configuration_tls_required_for_host` with is_direct): `.local`
    /// names, unqualified names and loopback addresses are not subject to ATS unless
    /// NSAllowsLocalNetworking is explicitly NO. False reads Apple's documentation: only
    /// NSAllowsLocalNetworking = YES exempts them.
    public var localNetworkingByDefault: Bool
    /// ATS's minimum leaf key sizes, by key algorithm (SecPolicy.c SecPolicyAddStrongKeySizeOptions:
    /// RSA 2048, EC 256); algorithms not listed are not size-checked.
    public var leafMinimumKeyBits: [PublicKeyFacts.Algorithm: Int]
    /// How a leaf key is compared with its minimum: whole bytes, as Apple's code does
    /// (SecCertificateIsAtLeastMinKeySize), so a 2047-bit RSA key passes.
    public var leafKeySizeCounting: KeySizeCounting
    /// Apple's certificate rules as this set reads them, lifetimes above all: Apple's code
    /// (SecPolicyServer.c, elapsed seconds with one hour of slip at 825 days) for the releases,
    /// the published rule (HT210176, inclusive days) for `documented` (docs/certificates.md).
    public var certificateRules: CertificateRuleSet
    /// The exception entries the platform registers for every app (`BuiltInException`): Apple's
    /// code has the same seven from iOS 13 to 26; the documentation lists none.
    public var builtInExceptions: [BuiltInException]
    /// Whether NSAllowsLocalNetworking = YES also exempts IP addresses that are not direct
    /// (routed). Apple's code: no, it exempts only direct hosts (SecProtocolConfiguration.m,
    /// `sec_protocol_configuration_tls_required_for_host_or_address_internal` reads the key only
    /// when `is_direct`; `testLocalNetworkingKeyOverridesAllowsArbitraryLoads`: 203.0.113.1 stays
    /// under ATS). Apple's documentation: "IP addresses" without that condition (`documented`).
    public var localNetworkingCoversRoutedAddresses: Bool
    /// The OS releases this set models, declared here once; nil for Apple's documentation
    /// (`documented`), which is no release. Disjoint across `all` (`inReleaseOrder`).
    public var releases: ReleaseRange?

    public init(id: String, title: String, summary: String, tls13Suites: [CipherSuite], forwardSecretSuites: [CipherSuite],
                nonForwardSecretSuites: [CipherSuite], platformSuites: [CipherSuite], platformMinimumVersion: TLSVersion,
                platformMaximumVersion: TLSVersion = .tls13, ipAddressesSubjectToATS: Bool,
                forwardSecrecyExceptionDropsKeySizeCheck: Bool, appliesIOS13CertificateRules: Bool,
                groups: [NamedGroup] = RuleSet.classicalGroups,
                signatureSchemes: [SignatureScheme] = RuleSet.signatureSchemes2024,
                alpn: [String] = ["h2", "http/1.1"], localNetworkingByDefault: Bool = true,
                leafMinimumKeyBits: [PublicKeyFacts.Algorithm: Int] = RuleSet.strongKeySizes,
                leafKeySizeCounting: KeySizeCounting = .bytes,
                certificateRules: CertificateRuleSet,
                builtInExceptions: [BuiltInException] = BuiltInException.securityFramework,
                localNetworkingCoversRoutedAddresses: Bool = false, releases: ReleaseRange? = nil) {
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
        self.certificateRules = certificateRules
        self.appliesIOS13CertificateRules = appliesIOS13CertificateRules
        self.groups = groups
        self.signatureSchemes = signatureSchemes
        self.alpn = alpn
        self.localNetworkingByDefault = localNetworkingByDefault
        self.leafMinimumKeyBits = leafMinimumKeyBits
        self.leafKeySizeCounting = leafKeySizeCounting
        self.builtInExceptions = builtInExceptions
        self.localNetworkingCoversRoutedAddresses = localNetworkingCoversRoutedAddresses
        self.releases = releases
    }

    /// SecPolicy.c SecPolicyAddStrongKeySizeOptions: "RSA key sizes are 2048-bit or larger. EC
    /// key sizes are P-256 or larger."
    public static let strongKeySizes: [PublicKeyFacts.Algorithm: Int] = [.rsa: 2048, .ec: 256]

    /// The minimum a leaf key misses under ATS, nil when it meets it (or its algorithm is not
    /// size-checked).
    public func leafKeyShortfall(_ key: PublicKeyFacts) -> Int? {
        guard let minimum = leafMinimumKeyBits[key.algorithm],
              !leafKeySizeCounting.meets(bits: key.bits, minimum: minimum) else { return nil }
        return minimum
    }

    /// Safari 18.4's supported_groups (client-hellos.md): x25519, P-256, P-384, P-521, nothing else.
    public static let classicalGroups: [NamedGroup] = [.x25519, .secp256r1, .secp384r1, .secp521r1]
    /// Safari 26.4's: the post-quantum hybrid first, then the classical four.
    public static let groups26: [NamedGroup] = [.x25519MLKEM768] + classicalGroups
    /// Safari 18.4 and 26.4's signature_algorithms (client-hellos.md; 0x0805 is sent twice, kept
    /// once here): no Ed25519, Ed448, rsa_pss_pss_*, ecdsa_secp521r1_sha512 or ecdsa_sha1.
    public static let signatureSchemes2024: [SignatureScheme] = [
        .ecdsaSecp256r1SHA256, .rsaPSSRSAESHA256, .rsaPKCS1SHA256, .ecdsaSecp384r1SHA384, .rsaPSSRSAESHA384,
        .rsaPKCS1SHA384, .rsaPSSRSAESHA512, .rsaPKCS1SHA512, .rsaPKCS1SHA1,
    ]
    /// Releases up to 15.x also offer ecdsa_sha1 (ats-reference section 7); placed after
    /// ecdsa_secp384r1_sha384, an assumption: no capture of that era is in client-hellos.md.
    public static let signatureSchemesThrough15: [SignatureScheme] = [
        .ecdsaSecp256r1SHA256, .rsaPSSRSAESHA256, .rsaPKCS1SHA256, .ecdsaSecp384r1SHA384, .ecdsaSHA1, .rsaPSSRSAESHA384,
        .rsaPKCS1SHA384, .rsaPSSRSAESHA512, .rsaPKCS1SHA512, .rsaPKCS1SHA1,
    ]

    public var description: String { id }

    /// TLS 1.3 suites plus the forward-secret group: what an ATS-required connection may use.
    public var atsSuites: [CipherSuite] { tls13Suites + forwardSecretSuites }

    /// Apple's published rules: the documented suite lists, NSAllowsLocalNetworking as documented.
    public static let documented = RuleSet(
        id: "documented",
        title: "Documented ATS rules",
        summary: "Apple's published requirements: the 11-suite forward-secret list and 6 TLS_RSA suites; "
            + "the platform offer is the iOS 12.2-15.3 list (it holds every documented suite), TLS 1.0 the platform minimum; "
            + "IP addresses are subject to ATS as on iOS 17 and later; local names need NSAllowsLocalNetworking = YES; "
            + "the ClientHello of iOS 12.2-15 (ecdsa_sha1 still offered).",
        tls13Suites: SuiteTables.tls13,
        forwardSecretSuites: SuiteTables.documentedForwardSecret,
        nonForwardSecretSuites: SuiteTables.documentedNonForwardSecret,
        platformSuites: SuiteTables.platform2019,
        platformMinimumVersion: .tls10,
        ipAddressesSubjectToATS: true,
        forwardSecrecyExceptionDropsKeySizeCheck: true,
        appliesIOS13CertificateRules: true,
        signatureSchemes: signatureSchemesThrough15,
        localNetworkingByDefault: false,
        certificateRules: .documented,
        builtInExceptions: [],
        localNetworkingCoversRoutedAddresses: true)

    /// Apple's Security code since Security-60158 (iOS 15.4 / macOS 12.3, spring 2022), before
    /// iOS 17 / macOS 14 made connections to IP addresses subject to ATS.
    public static let appleCode2022 = RuleSet(
        id: "ios15.4",
        title: "iOS 15.4 - 16 / macOS 12.3 - 13 (Apple's Security code)",
        summary: "The suite groups of Security-60158's SecProtocolInternal.h: 10 forward-secret suites "
            + "(CHACHA20 and ECDHE_RSA_AES_256_CBC_SHA in, every CBC_SHA256/SHA384 suite out) and 4 TLS_RSA suites; "
            + "the platform offer is the iOS 15.4-26 list, TLS 1.0 the platform minimum; Safari 18.4's ClientHello "
            + "(no ecdsa_sha1); local names and loopback addresses exempt unless NSAllowsLocalNetworking is NO; "
            + "IP addresses are not subject to ATS and IP/CIDR exception keys are ignored (until iOS 17).",
        tls13Suites: SuiteTables.tls13,
        forwardSecretSuites: SuiteTables.appleCode2022ForwardSecret,
        nonForwardSecretSuites: SuiteTables.appleCode2022NonForwardSecret,
        platformSuites: SuiteTables.platform2022,
        platformMinimumVersion: .tls10,
        ipAddressesSubjectToATS: false,
        forwardSecrecyExceptionDropsKeySizeCheck: true,
        appliesIOS13CertificateRules: true,
        certificateRules: .securityFramework,
        // Security-60158 shipped with iOS 15.4 / macOS 12.3; iOS 17 / macOS 14 made IP addresses
        // subject to ATS (`ios17`), iOS 26 / macOS 26 changed the default minimum (`ios26`).
        releases: ReleaseRange(iOS: .init(15, 4), through: .init(16), macOS: .init(12, 3), through: .init(13)))

    /// iOS 17 - 18 / macOS 14 - 15: Security-60158's suites, with connections to IP addresses
    /// subject to ATS and IP/CIDR exception keys read.
    public static let ios17: RuleSet = {
        var set = RuleSet.appleCode2022
        set.id = "ios17"
        set.title = "iOS 17 - 18 / macOS 14 - 15 (Apple's Security code)"
        set.summary = "As ios15.4, but connections to IP addresses are subject to ATS and IP/CIDR exception keys are read "
            + "(iOS 17 / macOS 14)."
        set.ipAddressesSubjectToATS = true
        set.releases = ReleaseRange(iOS: .init(17), through: .init(18), macOS: .init(14), through: .init(15))
        return set
    }()

    /// iOS 26 / macOS 26 with an app built on the 2025 SDKs, as nscurl on a current Mac: the default.
    public static let ios26: RuleSet = {
        var set = RuleSet.ios17
        set.id = "ios26"
        set.title = "iOS 26 / macOS 26"
        set.summary = "As ios17, but the default minimum is TLS 1.2 (SecProtocol.c, sec_protocol_options_get_default_min_tls_protocol_version): "
            + "TLS 1.0 and 1.1 are not offered with ATS off, so a TLS 1.0 server fails Allow All Loads with -9836, "
            + "while an explicit NSExceptionMinimumTLSVersion of TLSv1.0 or TLSv1.1 still sets the minimum; "
            + "Safari 26.4's ClientHello (X25519MLKEM768 first, which OpenSSL 3.0 cannot send)."
        set.platformMinimumVersion = .tls12
        set.groups = RuleSet.groups26
        set.releases = ReleaseRange(iOS: .init(26), through: nil, macOS: .init(26), through: nil)
        return set
    }()

    /// The newest release: what the command line judges by unless --rules says otherwise, and
    /// the set a library caller names when it means "a current iPhone or Mac". Named here once;
    /// no public function defaults a rule set (`NoRuleSetDefaultTests`).
    public static let current = RuleSet.ios26

    /// iOS 13 - 15.3 / macOS 10.15 - 12.2, the releases before Security-60158's suite groups: the
    /// documented rules (their suite list is the one those releases used), but connections to IP
    /// addresses are not subject to ATS (until iOS 17 / macOS 14) and IP/CIDR exception keys are
    /// not read. From iOS 13 because Apple's built-in exceptions and certificate rules start there.
    /// Lifetimes are counted as that era's code counts them (Security-59306, -59754, -60157
    /// SecPolicyServer.c, `SecPolicyCheck...ValidityPeriodMaximums`: elapsed seconds, 825 days
    /// "and 1 hour slip"), not as the published rule does. Named `ios16` until issue 39.
    public static let ios13: RuleSet = {
        var set = RuleSet.documented
        set.id = "ios13"
        set.title = "iOS 13 - 15.3 / macOS 10.15 - 12.2"
        set.summary = "The documented rules as the releases before iOS 15.4 ran them: IP addresses are not subject to ATS and "
            + "IP/CIDR exception keys are ignored; Apple's built-in exceptions (apple.com, ...) apply, as in Security-60420's code; "
            + "certificate lifetimes counted as Security-59306 to -60157 count them (825 days and one hour)."
        set.ipAddressesSubjectToATS = false
        set.builtInExceptions = BuiltInException.securityFramework
        set.certificateRules = .securityFramework
        set.releases = ReleaseRange(iOS: .init(13), through: .init(15, 3), macOS: .init(10, 15), through: .init(12, 2))
        return set
    }()

    public static let all: [RuleSet] = [.ios26, .documented, .ios17, .appleCode2022, .ios13]

    /// `all` as the release matrix shows it: the sets that model releases, oldest first, then
    /// those that model none (Apple's documentation), shown apart.
    public static var inReleaseOrder: [RuleSet] {
        all.filter { $0.releases != nil }.sorted { $0.releases! < $1.releases! } + all.filter { $0.releases == nil }
    }

    /// The column header of a rule set: its releases ("iOS 13 - 15.3"), or "Apple's documentation".
    public var releasesText: String { releases?.iOSText ?? "Apple's documentation" }

    /// The set whose id is `id` exactly (records and reports name sets by id).
    public static func named(_ id: String) -> RuleSet? {
        all.first { $0.id == id.lowercased() }
    }

    /// What `--rules TEXT` means: a set's id, or a release (`ios16`, `ios17.2`, `macos14`,
    /// `macos10.15`) resolved to the set whose `releases` cover it. `notice` is set when TEXT was
    /// once an id with another meaning (`ios16` named the set for iOS 13 - 15.3 until issue 39).
    /// nil when TEXT is neither an id nor a release a set covers.
    public static func resolve(_ text: String) -> (ruleSet: RuleSet, notice: String?)? {
        let wanted = text.lowercased()
        if let release = ReleaseRange.Release(parsing: wanted), let set = all.first(where: { $0.releases?.contains(release) == true }) {
            let notice = renamedIDs[wanted].map { old in
                "note: --rules \(wanted) means \(release) (rule set \(set.id), \(set.releasesText)); "
                    + "the set once named \(wanted) (\(old.releasesText)) is now \(old.id)"
            }
            return (set, notice)
        }
        return named(wanted).map { ($0, nil) }
    }

    /// Ids whose meaning changed, with the set they used to name.
    static let renamedIDs: [String: RuleSet] = ["ios16": .ios13]

    /// `--help`'s and the man page's list: every id with the releases it covers.
    public static var idsWithReleases: String {
        inReleaseOrder.map { "\($0.id) (\($0.releases?.text ?? "Apple's documentation"))" }.joined(separator: ", ")
    }
}

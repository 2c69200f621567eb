import PropertyList
import TextSupport
import TLSFacts

/// What ATS requires of one URL under an app's dictionary, offline (`atsprobe plist explain`):
/// `EffectivePolicy` (the same the loads, `plist check` and `app` use) laid out for people and
/// programs. Its JSON is documented in docs/json-schema.md ("plist explain").
public struct PolicyExplanation: Sendable, Hashable, Codable {
    /// An NSExceptionDomains or NSPinnedDomains entry, as found for the host.
    public struct Entry: Sendable, Hashable, Codable {
        /// The key as written (escaped for output by the renderers).
        public var key: String
        /// "exact", "subdomain" (the host is `depth` labels below the key) or "addressRange".
        public var match: String
        public var depth: Int?
        public var prefixLength: Int?
        /// One of Apple's built-in exceptions (`BuiltInException`), not the app's.
        public var builtIn: Bool

        init(_ match: DomainMatch) {
            key = match.key
            builtIn = match.isBuiltIn
            switch match.kind {
            case .exact: self.match = "exact"
            case .subdomain(let depth): self.match = "subdomain"; self.depth = depth
            case .addressRange(let length): self.match = "addressRange"; prefixLength = length
            }
        }
    }

    /// Why TLS is (not) required for the host.
    public enum Reason: String, Sendable, Hashable, Codable {
        /// No entry and no exemption: ATS's defaults.
        case defaults
        /// The app's NSExceptionDomains entry decides.
        case exception
        /// One of Apple's built-in exceptions decides.
        case builtInException
        /// A direct host with NSAllowsLocalNetworking not NO (or YES, by the documentation).
        case localNetworking
        /// NSAllowsArbitraryLoads, effective, and no entry.
        case arbitraryLoads
        /// An IP address under a rule set before iOS 17.
        case ipAddressBeforeIOS17
    }

    /// The pins that apply to the host (NSPinnedDomains), and whether any chain can satisfy them.
    public struct Pins: Sendable, Hashable, Codable {
        /// Every NSPinnedDomains key that applies (exact, or the immediate parent with NSIncludesSubdomains).
        public var keys: [String]
        /// nil: the key is absent; []: present with no readable identity (matches nothing).
        public var caIdentities: [String]?
        public var leafIdentities: [String]?
        /// False when a present identity key holds no readable identity: every load fails pinning.
        public var canMatch: Bool
    }

    public var url: String
    public var host: String
    public var scheme: Target.Scheme
    /// The entry that governs the host under Apple's code (NSIncludesSubdomains at any depth).
    public var entry: Entry?
    /// Set only where the documentation's reading (one label) picks another entry (or none).
    public var entryOneLabelReading: Entry?
    public var readingsDiffer: Bool
    /// Apple's `is_direct` input: unqualified/.local name, loopback, link-local or --direct address.
    public var direct: Bool
    /// TLS (and ATS's extended checks) required: false means http:// loads go through.
    public var tlsRequired: Bool
    public var reason: Reason
    public var minimumTLSVersion: String
    /// Where the minimum comes from: "entry" (the entry's NSExceptionMinimumTLSVersion), "ats"
    /// (ATS's TLS 1.2), "platform" (ATS does not apply: the platform's default, Apple sets none).
    public var minimumTLSVersionSource: String
    public var maximumTLSVersion: String
    /// The cipher suites are restricted to ATS's forward-secret group (with TLS 1.3's).
    public var forwardSecrecyRequired: Bool
    /// "ats" (forward-secret group), "ats+tls_rsa" (NSExceptionRequiresForwardSecrecy = NO), "platform" (no restriction).
    public var cipherSuites: String
    /// Certificate Transparency for chains to a root of Apple's store: default trust evaluation,
    /// under every dictionary (docs/trust.md).
    public var certificateTransparencyRequired: Bool
    /// Which chains need CT for this host (`KeyJudgement.certificateTransparencyScope`):
    /// "ctRequiredRoots" (Apple's public roots only), or "everyRoot" when the governing entry sets
    /// NSRequiresCertificateTransparency (user-installed roots and app anchors too).
    public var certificateTransparency: KeyJudgement.CertificateTransparencyScope
    public var pins: Pins?
    /// `EffectivePolicy.notes`: keys ignored, values not read, built-in exceptions, readings.
    public var notes: [String]

    /// The notes on the dictionary as written (values Apple's reader ignores, near-miss keys, the
    /// CT key) come from `KeyJudgement` through `EffectivePolicy.notes`, as in `plist check` and `app`:
    /// read `configuration` with `ATSConfiguration(propertyList:)` to have them.
    public init(target: Target, configuration: ATSConfiguration, ruleSet: RuleSet, directAddresses: [IPAddress] = []) {
        let policy = EffectivePolicy(configuration: configuration, host: target.host, scheme: target.scheme, ruleSet: ruleSet,
                                     directAddresses: directAddresses)
        url = target.url
        host = target.host
        scheme = target.scheme
        entry = policy.match.map(Entry.init)
        if let disagreement = policy.subdomainDisagreement {
            readingsDiffer = true
            entryOneLabelReading = disagreement.oneLabel.map(Entry.init)
        } else {
            readingsDiffer = false
        }
        direct = policy.isDirectHost
        tlsRequired = policy.atsRequired
        switch policy.exemption {
        case .arbitraryLoads?: reason = .arbitraryLoads
        case .localNetworking?: reason = .localNetworking
        case .ipAddressBeforeIOS17?: reason = .ipAddressBeforeIOS17
        case nil: reason = policy.match.map { $0.isBuiltIn ? .builtInException : .exception } ?? .defaults
        }
        minimumTLSVersion = policy.minimumVersion.plistName
        if policy.exemption != nil {
            minimumTLSVersionSource = "platform"
        } else if let text = policy.match?.exception.minimumTLSVersion, DomainException.parseMinimumTLSVersion(text) != nil {
            minimumTLSVersionSource = "entry"
        } else {
            minimumTLSVersionSource = "ats"
        }
        maximumTLSVersion = policy.maximumVersion.plistName
        forwardSecrecyRequired = policy.restrictsCipherSuites && policy.requiresForwardSecrecy
        cipherSuites = !policy.restrictsCipherSuites ? "platform" : policy.requiresForwardSecrecy ? "ats" : "ats+tls_rsa"
        certificateTransparencyRequired = true
        certificateTransparency = KeyJudgement.certificateTransparencyScope(policy)
        if let found = configuration.pinnedDomain(host: target.host) {
            pins = Pins(keys: found.keys, caIdentities: found.pins.caIdentities, leafIdentities: found.pins.leafIdentities,
                        canMatch: found.pins.canEverMatch)
        }
        notes = policy.notes
    }

    /// One line on why TLS is or is not required.
    public var reasonText: String {
        let key = entry.map { UntrustedText.escape($0.key, limit: 200) } ?? ""
        switch reason {
        case .defaults: return "no entry applies: ATS defaults"
        case .exception:
            return tlsRequired ? "the NSExceptionDomains entry \"\(key)\" keeps TLS required"
                : "the NSExceptionDomains entry \"\(key)\" sets NSExceptionAllowsInsecureHTTPLoads"
        case .builtInException: return "Apple's built-in exception \"\(key)\" (registered for every app) allows insecure HTTP loads"
        case .localNetworking: return "a direct (local) host, and NSAllowsLocalNetworking is not NO"
        case .arbitraryLoads: return "NSAllowsArbitraryLoads, and no entry applies"
        case .ipAddressBeforeIOS17: return "an IP address: not subject to ATS before iOS 17 / macOS 14"
        }
    }
}

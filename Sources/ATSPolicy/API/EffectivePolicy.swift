import TLSFacts

/// What ATS asks of one load: a configuration applied to a host and scheme under a rule set.
/// Default trust evaluation (layer 2A) is not here: it applies to every load.
public struct EffectivePolicy: Sendable, Hashable {
    /// Why ATS does not apply to a load at all.
    public enum Exemption: String, Sendable, Hashable, Codable {
        /// NSAllowsArbitraryLoads (effective) and no exception entry for the host.
        case arbitraryLoads
        /// A direct host (an unqualified or .local name, a loopback, link-local or declared-direct
        /// address) and NSAllowsLocalNetworking not NO (Apple's code; `documented` needs it YES
        /// and also exempts every IP address with it).
        case localNetworking
        /// An IP address under a rule set before iOS 17.
        case ipAddressBeforeIOS17
    }

    public var host: String
    public var scheme: Target.Scheme
    /// The rule set's id, for messages.
    public var ruleSetID: String
    /// nil when ATS applies (with defaults or an exception entry).
    public var exemption: Exemption?
    /// The exemption the host would have without an exception entry of its own (the global keys
    /// alone): what removing the entry would give it.
    public var exemptionWithoutEntry: Exemption?
    /// The exception entry used, if any.
    public var match: DomainMatch?
    /// Set when the two NSIncludesSubdomains readings pick different entries for this host.
    public var subdomainDisagreement: SubdomainDisagreement?
    /// "ATS required": the extended checks of 2B (protocol, suite, leaf key size, leaf hash).
    public var atsRequired: Bool
    /// Lowest protocol offered (never below the platform minimum).
    public var minimumVersion: TLSVersion
    public var maximumVersion: TLSVersion
    public var requiresForwardSecrecy: Bool
    /// http:// loads allowed.
    public var allowsInsecureHTTP: Bool
    /// The offer is limited to ATS suites (+TLS_RSA); false means the platform list.
    public var restrictsCipherSuites: Bool
    public var checksLeafKeySize: Bool
    public var checksLeafSignatureHash: Bool
    /// The NSPinnedDomains entry for the host, if any.
    public var pins: PinnedDomain?
    /// NSRequiresCertificateTransparency on the entry: CT required whatever the chain's root
    /// (`KeyJudgement.certificateTransparencyKey`); pass it to the certificate rules.
    public var requiresCertificateTransparency: Bool
    /// Why the dictionary means what it means here, for people: keys ignored, values not read,
    /// exceptions the platform makes moot, readings that disagree.
    public var notes: [String]

    public var atsApplies: Bool { exemption == nil }
    /// Whether the host is direct (on-link) as Apple's `is_direct` input: `isDirect(_:directAddresses:)`.
    public var isDirectHost: Bool

    /// `directAddresses`: addresses to treat as direct besides loopback and link-local ones (a
    /// device finds the addresses of its own subnets direct; `plist explain --direct`).
    public init(configuration: ATSConfiguration, host: String, scheme: Target.Scheme = .https,
                ruleSet: RuleSet, subdomainReading: SubdomainReading = .anyDepth,
                directAddresses: [IPAddress] = []) {
        self.host = host
        self.scheme = scheme
        self.ruleSetID = ruleSet.id
        let match = configuration.match(host: host, reading: subdomainReading, ruleSet: ruleSet)
        self.match = match
        self.subdomainDisagreement = configuration.subdomainDisagreement(host: host, ruleSet: ruleSet)
        self.pins = configuration.pinnedDomain(host: host)?.pins
        self.maximumVersion = ruleSet.platformMaximumVersion

        let isDirect = EffectivePolicy.isDirect(host, directAddresses: directAddresses)
        self.isDirectHost = isDirect
        // An exception entry, even an empty one, makes the global keys irrelevant for its host.
        do {
            let isIP = Target.isIPAddress(host)
            if isIP && !ruleSet.ipAddressesSubjectToATS {
                exemptionWithoutEntry = .ipAddressBeforeIOS17
            } else if configuration.allowsLocalNetworking == true
                        && (isDirect || (isIP && ruleSet.localNetworkingCoversRoutedAddresses)) {
                // SecProtocolConfiguration.m, ..._tls_required_for_host_or_address_internal: only a
                // direct host is exempt (a routed address stays under ATS); the documentation's
                // reading (`documented`) exempts every IP address.
                exemptionWithoutEntry = .localNetworking
            } else if configuration.allowsLocalNetworking == nil && ruleSet.localNetworkingByDefault && isDirect {
                // SecProtocolConfiguration.m: a direct (local) host with no exception entry does not
                // require TLS unless NSAllowsLocalNetworking is explicitly NO.
                exemptionWithoutEntry = .localNetworking
            } else if configuration.effectiveAllowsArbitraryLoads {
                exemptionWithoutEntry = .arbitraryLoads
            } else {
                exemptionWithoutEntry = nil
            }
        }
        exemption = match == nil ? exemptionWithoutEntry : nil
        requiresCertificateTransparency = match?.exception.requiresCertificateTransparency ?? false

        let exception = match?.exception ?? DomainException()
        if exemption != nil {
            atsRequired = false
            minimumVersion = ruleSet.platformMinimumVersion
            requiresForwardSecrecy = false
            allowsInsecureHTTP = true
            restrictsCipherSuites = false
        } else {
            allowsInsecureHTTP = exception.allowsInsecureHTTPLoads
            requiresForwardSecrecy = exception.effectiveRequiresForwardSecrecy
            // NSExceptionAllowsInsecureHTTPLoads turns "ATS required" off; with forward secrecy
            // also off the cipher list is no longer restricted.
            atsRequired = !allowsInsecureHTTP
            restrictsCipherSuites = !(allowsInsecureHTTP && !requiresForwardSecrecy)
            // Apple's code sets the minimum from the entry, below the platform default too
            // (SecProtocolConfiguration.m: sec_protocol_options_set_min_tls_protocol_version).
            minimumVersion = exception.effectiveMinimumTLSVersion
        }
        checksLeafSignatureHash = atsRequired
        notes = EffectivePolicy.notes(configuration: configuration, host: host, match: match, ruleSet: ruleSet)
        notes += KeyJudgement.notes(configuration: configuration, host: host, match: match, ruleSet: ruleSet)
        if let subdomainDisagreement { notes.append(subdomainDisagreement.message) }
        checksLeafKeySize = atsRequired && !(!requiresForwardSecrecy && ruleSet.forwardSecrecyExceptionDropsKeySizeCheck)
    }

    /// The suites this load may use under `ruleSet`, in Apple's preference order.
    public func allowedSuites(ruleSet: RuleSet) -> [CipherSuite] {
        if !restrictsCipherSuites { return SuiteTables.ordered(ruleSet.platformSuites) }
        if requiresForwardSecrecy { return SuiteTables.ordered(ruleSet.atsSuites) }
        return SuiteTables.ordered(ruleSet.atsSuites + ruleSet.nonForwardSecretSuites)
    }

    /// Whether `suite` is one of `allowedSuites(ruleSet:)` (without ordering them).
    public func allows(_ suite: CipherSuite, ruleSet: RuleSet) -> Bool {
        if !restrictsCipherSuites { return ruleSet.platformSuites.contains(suite) }
        return ruleSet.atsSuites.contains(suite) || (!requiresForwardSecrecy && ruleSet.nonForwardSecretSuites.contains(suite))
    }

    private static func notes(configuration: ATSConfiguration, host: String, match: DomainMatch?, ruleSet: RuleSet) -> [String] {
        var notes: [String] = []
        if configuration.allowsArbitraryLoads && !configuration.effectiveAllowsArbitraryLoads {
            let present = [
                configuration.allowsArbitraryLoadsForMedia.map { _ in ATSKey.allowsArbitraryLoadsForMedia.name },
                configuration.allowsArbitraryLoadsInWebContent.map { _ in ATSKey.allowsArbitraryLoadsInWebContent.name },
                configuration.allowsLocalNetworking.map { _ in ATSKey.allowsLocalNetworking.name },
            ].compactMap { $0 }
            notes.append("NSAllowsArbitraryLoads is ignored because \(present.joined(separator: ", ")) is present")
        }
        if let match {
            if match.isBuiltIn {
                notes.append("\"\(match.key)\" is one of Apple's built-in exceptions, registered for every app "
                    + "(SecProtocolConfiguration.m): TLS is not required, \(match.exception.effectiveMinimumTLSVersion) is the minimum; "
                    + "an NSExceptionDomains entry with the same key replaces it")
            }
            if configuration.allowsArbitraryLoads {
                notes.append("the NSExceptionDomains entry \"\(match.key)\" overrides NSAllowsArbitraryLoads for this host")
            }
            if let text = match.exception.minimumTLSVersion, DomainException.parseMinimumTLSVersion(text) == nil {
                notes.append("NSExceptionMinimumTLSVersion \"\(text)\" is not a value Apple reads (TLSv1.0-TLSv1.3); TLSv1.2 applies")
            }
            if match.exception.effectiveMinimumTLSVersion < ruleSet.platformMinimumVersion {
                notes.append("\(match.exception.effectiveMinimumTLSVersion) is below what the platform (\(ruleSet.id)) offers by default "
                    + "(\(ruleSet.platformMinimumVersion)); the exception sets the minimum, as Apple's code does")
            }
        } else if Target.isIPAddress(host) && !ruleSet.ipAddressesSubjectToATS
                    && configuration.exceptionDomains.keys.contains(where: { IPAddressRange($0) != nil }) {
            notes.append("IP/CIDR exception keys are read only from iOS 17 / macOS 14 on")
        }
        return notes
    }

    /// What Apple's code treats as a direct (local) host, the `is_direct` input of
    /// `sec_protocol_configuration_tls_required_for_host`/`_for_address`: an unqualified name or a
    /// name ending in .local (trailing dot allowed: `isLocalTLD` in SecProtocolConfigurationTest.m);
    /// a loopback or link-local address (`testLocalNetworkingAllowedByDefault`: 127.0.0.1, ::1 and
    /// fe80::1 direct, fe00::1 and 203.0.113.1 not; 169.254.0.0/16 is IPv4's link-local range,
    /// RFC 3927); or an address in `directAddresses` (one a device reaches on-link).
    public static func isDirect(_ host: String, directAddresses: [IPAddress] = []) -> Bool {
        if let address = IPAddress(unbracketed(host)) {
            return isLoopback(host) || isLinkLocal(host) || directAddresses.contains(address)
        }
        var name = host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        return !name.isEmpty && (!name.contains(".") || name.hasSuffix(".local"))
    }

    private static func unbracketed(_ address: String) -> String {
        var text = Substring(address)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        return String(text)
    }

    /// An IPv4-mapped IPv6 address (::ffff:a.b.c.d) as its IPv4 bytes, else the bytes as they are.
    private static func unmapped(_ bytes: [UInt8]) -> [UInt8] {
        if bytes.count == 16, bytes.prefix(12) == ArraySlice([UInt8](repeating: 0, count: 10) + [0xFF, 0xFF]) {
            return Array(bytes.suffix(4))
        }
        return bytes
    }

    /// 127.0.0.0/8 and ::1 (an IPv4-mapped 127/8 too).
    public static func isLoopback(_ address: String) -> Bool {
        guard let parsed = IPAddressRange.parseAddress(unbracketed(address)) else { return false }
        let bytes = unmapped(parsed)
        if bytes.count == 4 { return bytes[0] == 127 }
        return bytes == [UInt8](repeating: 0, count: 15) + [1]
    }

    /// 169.254.0.0/16 (an IPv4-mapped one too) and fe80::/10.
    public static func isLinkLocal(_ address: String) -> Bool {
        guard let parsed = IPAddressRange.parseAddress(unbracketed(address)) else { return false }
        let bytes = unmapped(parsed)
        if bytes.count == 4 { return bytes[0] == 169 && bytes[1] == 254 }
        return bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80
    }

    /// The ClientHello an Apple client sends under this policy (ats-reference 4b): the protocol
    /// range and suites in Apple's order, TLS 1.3 suites only when the range reaches 1.3, and the
    /// release's groups, signature algorithms and ALPN (docs/rules.md, "The offer").
    public func clientOffer(ruleSet: RuleSet) -> ClientOffer {
        var suites = allowedSuites(ruleSet: ruleSet)
        if maximumVersion < .tls13 { suites.removeAll(where: \.isTLS13) }
        return ClientOffer(minVersion: minimumVersion, maxVersion: maximumVersion, suites: suites,
                           groups: ruleSet.groups, signatureSchemes: ruleSet.signatureSchemes, alpn: ruleSet.alpn)
    }
}

import TLSFacts

/// Names an app carries but does not load: Apple's own services (the system loads those, under
/// its own rules), XML namespaces and schema URLs, standards and licence texts, and the reserved
/// example names. Local names (`printer.local`, `localhost`) and addresses are not noise: a load
/// to them can fail (NSAllowsLocalNetworking = NO, `--rules` before iOS 17), so `app` judges them
/// as `plist check` does (issue 39). Shown in every report with the reason, and overridden with
/// `--include` and `--exclude` (docs/app.md, "The noise filter").
public struct NoiseFilter: Sendable {
    public enum Reason: String, Sendable, Hashable, Codable, CaseIterable {
        case apple
        case schema
        case documentation
        case example
        /// `--exclude` named it.
        case excluded
        /// `--hosts-only` was given and does not list it.
        case notListed

        public var label: String {
            switch self {
            case .apple: "Apple's own domain"
            case .schema: "XML namespace or schema"
            case .documentation: "standards, licence or documentation site"
            case .example: "reserved example name (RFC 2606)"
            case .excluded: "excluded"
            case .notListed: "not in the hosts asked for"
            }
        }
    }

    /// Each rule: a domain, matched exactly and with every subdomain.
    static let rules: [(Reason, [String])] = [
        (.apple, ["apple.com", "icloud.com", "mzstatic.com", "cdn-apple.com", "apple-cloudkit.com", "itunes.com",
                  "me.com", "mac.com", "aaplimg.com", "apple.news", "apple-dns.net", "icloud-content.com"]),
        (.schema, ["w3.org", "schemas.xmlsoap.org", "schemas.microsoft.com", "schemas.openxmlformats.org", "purl.org",
                   "ns.adobe.com", "xmlns.com", "schema.org", "json-schema.org", "xml.org", "relaxng.org"]),
        (.documentation, ["ietf.org", "rfc-editor.org", "iana.org", "unicode.org", "opensource.org", "gnu.org", "fsf.org",
                          "apache.org", "creativecommons.org", "mozilla.org", "swift.org", "llvm.org", "openssl.org",
                          "zlib.net", "sqlite.org", "spdx.org"]),
        (.example, ["example.com", "example.net", "example.org", "example", "invalid"]),
    ]

    /// Kept even when a rule above drops them.
    public var include: [String]
    /// Dropped even when found.
    public var exclude: [String]

    public init(include: [String] = [], exclude: [String] = []) {
        self.include = include.map { $0.lowercased() }
        self.exclude = exclude.map { $0.lowercased() }
    }

    /// `example.com` matches that host; `.example.com` and `*.example.com` match it and every subdomain.
    public static func matches(_ pattern: String, _ host: String) -> Bool {
        var domain = pattern
        if domain.hasPrefix("*.") { domain.removeFirst(2) } else if domain.hasPrefix(".") { domain.removeFirst() } else { return host == pattern }
        return host == domain || host.hasSuffix("." + domain)
    }

    /// HOST, .DOMAIN or *.DOMAIN, the name a host name (or an IP address, exact only).
    public static func isValidPattern(_ pattern: String) -> Bool {
        var name = pattern.lowercased()
        if name.hasPrefix("*.") { name.removeFirst(2) } else if name.hasPrefix(".") { name.removeFirst() }
        return HostScanner.isHostName(name) || (pattern == name && Target.isIPAddress(name))
    }

    /// Why `host` is not checked, or nil when it is.
    public func reason(_ host: String) -> Reason? {
        if exclude.contains(where: { NoiseFilter.matches($0, host) }) { return .excluded }
        if include.contains(where: { NoiseFilter.matches($0, host) }) { return nil }
        return NoiseFilter.builtInReason(host)
    }

    static func builtInReason(_ host: String) -> Reason? {
        for (reason, domains) in rules where domains.contains(where: { host == $0 || host.hasSuffix("." + $0) }) {
            return reason
        }
        return nil
    }
}

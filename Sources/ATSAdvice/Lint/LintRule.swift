import ATSPolicy

/// Every rule the ATS linter applies, as data: a stable id, its severity, and one line on what
/// it catches. docs/lint.md describes each with examples; ids never change meaning.
package struct LintRule: Hashable, Sendable, Identifiable, CustomStringConvertible {
    package let id: String
    package let severity: LintFinding.Severity
    package let summary: String

    package var description: String { id }

    init(_ id: String, _ severity: LintFinding.Severity, _ summary: String) {
        self.id = id
        self.severity = severity
        self.summary = summary
    }

    // Keys and values.
    package static let noATSDictionary = LintRule("no-ats-dictionary", .info, "no NSAppTransportSecurity dictionary: ATS defaults apply")
    package static let unknownKey = LintRule("unknown-key", .error, "a key ATS does not know (often a misspelling); it is ignored")
    package static let misplacedKey = LintRule("misplaced-key", .error, "a real ATS key at the wrong level; it is ignored there")
    package static let wrongType = LintRule("wrong-type", .error, "a value of the wrong property-list type (\"YES\" for a boolean, ...)")
    package static let tlsVersionUnparsed = LintRule("tls-version-unparsed", .error, "a minimum TLS version Apple does not parse; TLSv1.2 stays in force")
    package static let niapValue = LintRule("niap-value", .error, "an NIAP TLS package version other than \"none\" or \"FCP_v2.1\"")
    package static let precedenceIgnored = LintRule("precedence-ignored", .warning, "NSAllowsArbitraryLoads ignored on iOS 10+ because a finer global key is present")
    package static let deprecatedKey = LintRule("deprecated-key", .warning, "an iOS 9-era NSThirdParty*/NSTemporary* key; use the modern name")
    package static let obsoleteKey = LintRule("obsolete-key", .info, "NSRequiresCertificateTransparency: changes nothing for Apple's CT-required roots; makes CT required for user-installed roots and app anchors")
    package static let reviewJustification = LintRule("review-justification", .warning, "a key App Store review asks you to justify")
    package static let redundantDefault = LintRule("redundant-default", .info, "a value equal to the default: the key changes nothing")
    package static let noOpExceptionDomain = LintRule("no-op-exception-domain", .info, "an exception domain whose entries change nothing")
    package static let builtInExceptionReplaced = LintRule("builtin-exception-replaced", .info, "an NSExceptionDomains key equal to one of Apple's built-in exceptions (apple.com, ...): the app's entry replaces it")
    package static let emptyDictionary = LintRule("empty-dictionary", .info, "an empty NSExceptionDomains or NSPinnedDomains")

    // Domain keys (NSExceptionDomains and NSPinnedDomains).
    package static let domainEmpty = LintRule("domain-empty", .error, "an empty domain key")
    package static let domainWhitespace = LintRule("domain-whitespace", .error, "a domain key containing white space")
    package static let domainScheme = LintRule("domain-scheme", .error, "a domain key with a scheme (\"https://\")")
    package static let domainPort = LintRule("domain-port", .error, "a domain key with a port; keys never match one")
    package static let domainPath = LintRule("domain-path", .error, "a domain key with a path")
    package static let domainWildcard = LintRule("domain-wildcard", .error, "a wildcard domain key; use NSIncludesSubdomains")
    package static let domainUppercase = LintRule("domain-uppercase", .error, "a domain key with upper-case letters; keys are matched in lower case")
    package static let domainTrailingDot = LintRule("domain-trailing-dot", .error, "a domain key ending in a dot: hosts are looked up without their trailing dot, so it matches no host")
    package static let ipKeyRelease = LintRule("ip-key-release", .info, "an IP or CIDR exception key: read only on iOS 17 / macOS 14 and later")
    package static let cidrMalformed = LintRule("cidr-malformed", .error, "an IP or CIDR key that does not parse")

    // NSPinnedDomains.
    package static let pinMissingIdentities = LintRule("pin-missing-identities", .error, "a pinned domain with neither NSPinnedCAIdentities nor NSPinnedLeafIdentities")
    package static let pinEmptyIdentities = LintRule("pin-empty-identities", .error, "an empty or unreadable identity array: it pins the domain to nothing, every load fails")
    package static let pinMissingSPKI = LintRule("pin-missing-spki", .error, "an identity without SPKI-SHA256-BASE64")
    package static let pinBadBase64 = LintRule("pin-bad-base64", .error, "an SPKI-SHA256-BASE64 value that is not base64")
    package static let pinDigestLength = LintRule("pin-digest-length", .error, "an SPKI-SHA256-BASE64 value that does not decode to 32 bytes")

    package static let all: [LintRule] = [
        .noATSDictionary, .unknownKey, .misplacedKey, .wrongType, .tlsVersionUnparsed, .niapValue,
        .precedenceIgnored, .deprecatedKey, .obsoleteKey, .reviewJustification, .redundantDefault,
        .noOpExceptionDomain, .emptyDictionary, .builtInExceptionReplaced,
        .domainEmpty, .domainWhitespace, .domainScheme, .domainPort, .domainPath, .domainWildcard,
        .domainUppercase, .domainTrailingDot, .ipKeyRelease, .cidrMalformed,
        .pinMissingIdentities, .pinEmptyIdentities, .pinMissingSPKI, .pinBadBase64, .pinDigestLength,
    ]

    package static func withID(_ id: String) -> LintRule? { all.first { $0.id == id } }
}

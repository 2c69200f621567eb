import Testing

/// The lint rules as data: for each rule, property lists (XML fragments of an Info.plist root
/// dictionary) that trigger it and ones that must not. LintTests writes each to disk as XML
/// and binary and lints what PropertyListFile reads back.
struct LintCase: Sendable, CustomTestStringConvertible {
    /// The rule id expected (trigger) or forbidden (clean).
    let rule: String
    /// Content of the Info.plist root <dict>.
    let plist: String
    /// For a trigger: the key path of the finding, and text its message or fix must contain.
    let keyPath: String?
    let mentions: String?

    var triggers: Bool { keyPath != nil }
    var testDescription: String { "\(rule) \(triggers ? "fires" : "silent"): \(plist.prefix(120))" }

    static func fires(_ rule: String, _ plist: String, at keyPath: String, mentions: String) -> LintCase {
        LintCase(rule: rule, plist: plist, keyPath: keyPath, mentions: mentions)
    }

    static func silent(_ rule: String, _ plist: String) -> LintCase {
        LintCase(rule: rule, plist: plist, keyPath: nil, mentions: nil)
    }
}

/// Fragment builders, so each case reads as the dictionary it is.
func ats(_ inner: String) -> String { "<key>NSAppTransportSecurity</key><dict>\(inner)</dict>" }
func exceptions(_ domains: String) -> String { ats("<key>NSExceptionDomains</key><dict>\(domains)</dict>") }
func domain(_ name: String, _ inner: String) -> String { "<key>\(name)</key><dict>\(inner)</dict>" }
func pinned(_ domains: String) -> String { ats("<key>NSPinnedDomains</key><dict>\(domains)</dict>") }
func identity(_ spki: String) -> String { "<dict><key>SPKI-SHA256-BASE64</key><string>\(spki)</string></dict>" }
let insecure = "<key>NSExceptionAllowsInsecureHTTPLoads</key><true/>"
let goodPin = "n5EWH0NDPkmm3m22gNefYBWfLkrJFyYhoShGQoFYRAs="
let leafPins = "<key>NSPinnedLeafIdentities</key><array>\(identity(goodPin))</array>"

let ATS = "NSAppTransportSecurity"
let EXC = "NSAppTransportSecurity.NSExceptionDomains"
let PIN = "NSAppTransportSecurity.NSPinnedDomains"

extension LintCase {
    static let all: [LintCase] = [
        .fires("no-ats-dictionary", "<key>CFBundleName</key><string>App</string>", at: ATS, mentions: "defaults apply"),
        .silent("no-ats-dictionary", ats("")),

        .fires("unknown-key", ats("<key>NSAllowArbitraryLoads</key><true/>"), at: "\(ATS).NSAllowArbitraryLoads", mentions: "did you mean NSAllowsArbitraryLoads"),
        .fires("unknown-key", ats("<key>nsallowsarbitraryloads</key><true/>"), at: "\(ATS).nsallowsarbitraryloads", mentions: "did you mean NSAllowsArbitraryLoads"),
        .fires("unknown-key", "<key>NSAppTransportSecurty</key><dict/>", at: "NSAppTransportSecurty", mentions: "did you mean NSAppTransportSecurity"),
        .fires("unknown-key", exceptions(domain("example.com", "<key>NSIncludeSubdomains</key><true/>" + insecure)),
               at: "\(EXC).example.com.NSIncludeSubdomains", mentions: "did you mean NSIncludesSubdomains"),
        .fires("unknown-key", exceptions(domain("example.com", "<key>NSExceptionMinimumTLSVerison</key><string>TLSv1.1</string>")),
               at: "\(EXC).example.com.NSExceptionMinimumTLSVerison", mentions: "did you mean NSExceptionMinimumTLSVersion"),
        .fires("unknown-key", pinned(domain("example.com", "<key>NSPinnedCAIdentity</key><array>\(identity(goodPin))</array>" + leafPins)),
               at: "\(PIN).example.com.NSPinnedCAIdentity", mentions: "did you mean NSPinnedCAIdentities"),
        .fires("unknown-key", pinned(domain("example.com", "<key>NSPinnedLeafIdentities</key><array><dict><key>SPKI-SHA256-BASE-64</key><string>\(goodPin)</string></dict></array>")),
               at: "\(PIN).example.com.NSPinnedLeafIdentities[0].SPKI-SHA256-BASE-64", mentions: "did you mean SPKI-SHA256-BASE64"),
        .fires("unknown-key", ats("") + "<key>NSAllowArbitraryLoads</key><true/>", at: "NSAllowArbitraryLoads", mentions: "move it into the NSAppTransportSecurity dictionary"),
        .fires("unknown-key", ats("<key>example.com</key><dict/>"), at: "\(ATS).example.com", mentions: "inside NSExceptionDomains"),
        .silent("unknown-key", ats("<key>NSAllowsArbitraryLoads</key><true/>") + "<key>CFBundleName</key><string>App</string>"),
        .silent("unknown-key", exceptions(domain("example.com", "<key>NSIncludesSubdomains</key><true/>" + insecure))),

        .fires("misplaced-key", ats("<key>NSIncludesSubdomains</key><true/>"), at: "\(ATS).NSIncludesSubdomains", mentions: "inside an NSExceptionDomains entry"),
        .fires("misplaced-key", exceptions(domain("example.com", "<key>NSAllowsArbitraryLoads</key><true/>")),
               at: "\(EXC).example.com.NSAllowsArbitraryLoads", mentions: "directly under NSAppTransportSecurity"),
        .fires("misplaced-key", ats("") + "<key>NSAllowsArbitraryLoads</key><true/>", at: "NSAllowsArbitraryLoads", mentions: "only inside NSAppTransportSecurity"),
        .fires("misplaced-key", "<key>CFBundleIdentifier</key><string>com.example.app</string><key>NSAllowsArbitraryLoads</key><true/>",
               at: "NSAllowsArbitraryLoads", mentions: "move it into the NSAppTransportSecurity dictionary"),
        .fires("misplaced-key", pinned(domain("example.com", insecure + leafPins)),
               at: "\(PIN).example.com.NSExceptionAllowsInsecureHTTPLoads", mentions: "inside an NSExceptionDomains entry"),
        .silent("misplaced-key", exceptions(domain("example.com", "<key>NSIncludesSubdomains</key><true/>" + insecure))),

        .fires("wrong-type", ats("<key>NSAllowsArbitraryLoads</key><string>YES</string>"), at: "\(ATS).NSAllowsArbitraryLoads", mentions: "use <true/>"),
        .fires("wrong-type", ats("<key>NSAllowsArbitraryLoads</key><integer>1</integer>"), at: "\(ATS).NSAllowsArbitraryLoads", mentions: "found an integer"),
        .fires("wrong-type", ats("<key>NSAllowsArbitraryLoads</key><data>AQ==</data>"), at: "\(ATS).NSAllowsArbitraryLoads", mentions: "found data"),
        .fires("wrong-type", ats("<key>NSAllowsLocalNetworking</key><string>NO</string>"), at: "\(ATS).NSAllowsLocalNetworking", mentions: "use <false/>"),
        .fires("wrong-type", "<key>NSAppTransportSecurity</key><string>off</string>", at: ATS, mentions: "must be a dictionary"),
        .fires("wrong-type", ats("<key>NSExceptionDomains</key><array/>"), at: "\(ATS).NSExceptionDomains", mentions: "must be a dictionary"),
        .fires("wrong-type", exceptions("<key>example.com</key><true/>"), at: "\(EXC).example.com", mentions: "must be a dictionary"),
        .fires("wrong-type", exceptions(domain("example.com", "<key>NSExceptionMinimumTLSVersion</key><real>1.2</real>")),
               at: "\(EXC).example.com.NSExceptionMinimumTLSVersion", mentions: "must be a string"),
        .fires("wrong-type", pinned(domain("example.com", "<key>NSPinnedLeafIdentities</key><dict/>")),
               at: "\(PIN).example.com.NSPinnedLeafIdentities", mentions: "must be an array"),
        .fires("wrong-type", pinned(domain("example.com", "<key>NSPinnedLeafIdentities</key><array><string>\(goodPin)</string></array>")),
               at: "\(PIN).example.com.NSPinnedLeafIdentities[0]", mentions: "must be a dictionary"),
        .fires("wrong-type", pinned(domain("example.com", "<key>NSPinnedLeafIdentities</key><array><dict><key>SPKI-SHA256-BASE64</key><data>AAEC</data></dict></array>")),
               at: "\(PIN).example.com.NSPinnedLeafIdentities[0].SPKI-SHA256-BASE64", mentions: "must be a string"),
        .silent("wrong-type", ats("<key>NSAllowsArbitraryLoads</key><true/><key>NSAllowsLocalNetworking</key><false/>")),
        .silent("wrong-type", pinned(domain("example.com", leafPins))),

        .fires("tls-version-unparsed", exceptions(domain("example.com", "<key>NSExceptionMinimumTLSVersion</key><string>1.2</string>")),
               at: "\(EXC).example.com.NSExceptionMinimumTLSVersion", mentions: "write exactly \"TLSv1.2\""),
        .fires("tls-version-unparsed", exceptions(domain("example.com", "<key>NSExceptionMinimumTLSVersion</key><string>TLSv1.2 </string>")),
               at: "\(EXC).example.com.NSExceptionMinimumTLSVersion", mentions: "minimum stays TLSv1.2"),
        .fires("tls-version-unparsed", exceptions(domain("example.com", "<key>NSExceptionMinimumTLSVersion</key><string>tlsv1.1</string>")),
               at: "\(EXC).example.com.NSExceptionMinimumTLSVersion", mentions: "write exactly \"TLSv1.1\""),
        .fires("tls-version-unparsed", exceptions(domain("example.com", "<key>NSExceptionMinimumTLSVersion</key><string>TLSv1.4</string>")),
               at: "\(EXC).example.com.NSExceptionMinimumTLSVersion", mentions: "use one of TLSv1.0"),
        .fires("tls-version-unparsed", exceptions(domain("example.com", "<key>NSThirdPartyExceptionMinimumTLSVersion</key><string>TLS1.0</string>")),
               at: "\(EXC).example.com.NSThirdPartyExceptionMinimumTLSVersion", mentions: "write exactly \"TLSv1.0\""),
        .silent("tls-version-unparsed", exceptions(domain("example.com", "<key>NSExceptionMinimumTLSVersion</key><string>TLSv1.0</string>"))),
        .silent("tls-version-unparsed", exceptions(domain("example.com", "<key>NSExceptionMinimumTLSVersion</key><string>TLSv1.3</string>"))),

        .fires("niap-value", ats("<key>NSRequiresNIAPTLSPackageVersion</key><string>FCP_v2</string>"),
               at: "\(ATS).NSRequiresNIAPTLSPackageVersion", mentions: "use \"FCP_v2.1\""),
        .fires("niap-value", exceptions(domain("example.com", "<key>NSExceptionRequiresNIAPTLSPackageVersion</key><string>fcp_v2.1</string>")),
               at: "\(EXC).example.com.NSExceptionRequiresNIAPTLSPackageVersion", mentions: "use \"FCP_v2.1\""),
        .silent("niap-value", ats("<key>NSRequiresNIAPTLSPackageVersion</key><string>FCP_v2.1</string>")),
        .silent("niap-value", exceptions(domain("example.com", "<key>NSExceptionRequiresNIAPTLSPackageVersion</key><string>none</string>"))),

        .fires("precedence-ignored", ats("<key>NSAllowsArbitraryLoads</key><true/><key>NSAllowsLocalNetworking</key><false/>"),
               at: "\(ATS).NSAllowsArbitraryLoads", mentions: "because NSAllowsLocalNetworking is present"),
        .fires("precedence-ignored", ats("<key>NSAllowsArbitraryLoads</key><true/><key>NSAllowsArbitraryLoadsInWebContent</key><true/><key>NSAllowsArbitraryLoadsForMedia</key><true/>"),
               at: "\(ATS).NSAllowsArbitraryLoads", mentions: "NSAllowsArbitraryLoadsForMedia, NSAllowsArbitraryLoadsInWebContent are present"),
        .silent("precedence-ignored", ats("<key>NSAllowsArbitraryLoads</key><true/>")),
        .silent("precedence-ignored", ats("<key>NSAllowsArbitraryLoads</key><false/><key>NSAllowsLocalNetworking</key><true/>")),

        .fires("deprecated-key", exceptions(domain("example.com", "<key>NSThirdPartyExceptionAllowsInsecureHTTPLoads</key><true/>")),
               at: "\(EXC).example.com.NSThirdPartyExceptionAllowsInsecureHTTPLoads", mentions: "rename it to NSExceptionAllowsInsecureHTTPLoads"),
        .fires("deprecated-key", exceptions(domain("example.com", "<key>NSTemporaryExceptionMinimumTLSVersion</key><string>TLSv1.1</string>")),
               at: "\(EXC).example.com.NSTemporaryExceptionMinimumTLSVersion", mentions: "rename it to NSExceptionMinimumTLSVersion"),
        .silent("deprecated-key", exceptions(domain("example.com", insecure))),

        .fires("obsolete-key", exceptions(domain("example.com", "<key>NSRequiresCertificateTransparency</key><true/>")),
               at: "\(EXC).example.com.NSRequiresCertificateTransparency", mentions: "user-installed root"),
        .silent("obsolete-key", exceptions(domain("example.com", "<key>NSRequiresCertificateTransparency</key><false/>"))),
        .silent("obsolete-key", exceptions(domain("example.com", insecure))),

        .fires("review-justification", ats("<key>NSAllowsArbitraryLoads</key><true/>"), at: "\(ATS).NSAllowsArbitraryLoads", mentions: "App Store review"),
        .fires("review-justification", ats("<key>NSAllowsArbitraryLoadsInWebContent</key><true/>"), at: "\(ATS).NSAllowsArbitraryLoadsInWebContent", mentions: "web content"),
        .fires("review-justification", ats("<key>NSAllowsArbitraryLoadsForMedia</key><true/>"), at: "\(ATS).NSAllowsArbitraryLoadsForMedia", mentions: "media"),
        .fires("review-justification", ats("<key>NSAllowsArbitraryLoadsInMedia</key><true/>"), at: "\(ATS).NSAllowsArbitraryLoadsInMedia", mentions: "media"),
        .fires("review-justification", exceptions(domain("example.com", insecure)), at: "\(EXC).example.com.NSExceptionAllowsInsecureHTTPLoads", mentions: "plain HTTP"),
        .fires("review-justification", exceptions(domain("example.com", "<key>NSExceptionMinimumTLSVersion</key><string>TLSv1.1</string>")),
               at: "\(EXC).example.com.NSExceptionMinimumTLSVersion", mentions: "older than TLS 1.2"),
        .silent("review-justification", exceptions(domain("example.com", "<key>NSExceptionMinimumTLSVersion</key><string>TLSv1.3</string><key>NSExceptionRequiresForwardSecrecy</key><false/>"))),
        .silent("review-justification", ats("<key>NSAllowsArbitraryLoads</key><false/><key>NSAllowsLocalNetworking</key><true/>")),

        .fires("redundant-default", exceptions(domain("example.com", insecure + "<key>NSIncludesSubdomains</key><false/>")),
               at: "\(EXC).example.com.NSIncludesSubdomains", mentions: "is the default"),
        .fires("redundant-default", exceptions(domain("example.com", insecure + "<key>NSExceptionRequiresForwardSecrecy</key><true/>")),
               at: "\(EXC).example.com.NSExceptionRequiresForwardSecrecy", mentions: "is the default"),
        .fires("redundant-default", exceptions(domain("example.com", insecure + "<key>NSExceptionMinimumTLSVersion</key><string>TLSv1.2</string>")),
               at: "\(EXC).example.com.NSExceptionMinimumTLSVersion", mentions: "is the default"),
        .fires("redundant-default", ats("<key>NSAllowsArbitraryLoads</key><false/>"), at: "\(ATS).NSAllowsArbitraryLoads", mentions: "is the default"),
        .silent("redundant-default", exceptions(domain("example.com", insecure + "<key>NSIncludesSubdomains</key><true/>"))),
        // Beside NSAllowsArbitraryLoads = true a false NSAllowsLocalNetworking is not a no-op: it disables that key.
        .silent("redundant-default", ats("<key>NSAllowsArbitraryLoads</key><true/><key>NSAllowsLocalNetworking</key><false/>")),
        // Alone, NSAllowsLocalNetworking = false is not the default either: by Apple's code it puts
        // local names back under ATS.
        .silent("redundant-default", ats("<key>NSAllowsLocalNetworking</key><false/>")),
        .fires("redundant-default", ats("<key>NSAllowsArbitraryLoadsInWebContent</key><false/>"),
               at: "\(ATS).NSAllowsArbitraryLoadsInWebContent", mentions: "is the default"),

        .fires("no-op-exception-domain", exceptions(domain("example.com", "<key>NSIncludesSubdomains</key><false/>")),
               at: "\(EXC).example.com", mentions: "changes nothing"),
        .fires("no-op-exception-domain", exceptions(domain("example.com", "")), at: "\(EXC).example.com", mentions: "it is empty"),
        .fires("no-op-exception-domain", exceptions(domain("example.com", "<key>NSIncludesSubdomains</key><true/><key>NSExceptionRequiresForwardSecrecy</key><true/>")),
               at: "\(EXC).example.com", mentions: "apart from NSIncludesSubdomains"),
        .silent("no-op-exception-domain", ats("<key>NSAllowsArbitraryLoads</key><true/><key>NSExceptionDomains</key><dict>\(domain("example.com", "<key>NSIncludesSubdomains</key><true/>"))</dict>")),
        .silent("no-op-exception-domain", exceptions(domain("example.com", "<key>NSExceptionRequiresForwardSecrecy</key><false/>"))),

        .fires("empty-dictionary", ats("<key>NSExceptionDomains</key><dict/>"), at: "\(ATS).NSExceptionDomains", mentions: "is empty"),
        .fires("empty-dictionary", ats("<key>NSPinnedDomains</key><dict/>"), at: "\(ATS).NSPinnedDomains", mentions: "is empty"),
        .silent("empty-dictionary", exceptions(domain("example.com", insecure))),

        .fires("domain-empty", exceptions(domain("", insecure)), at: "\(EXC).", mentions: "empty"),
        .silent("domain-empty", exceptions(domain("example.com", insecure))),
        .fires("domain-whitespace", exceptions(domain("example.com ", insecure)), at: "\(EXC).example.com ", mentions: "use the key 'example.com'"),
        .silent("domain-whitespace", exceptions(domain("example.com", insecure))),
        .fires("domain-scheme", exceptions(domain("https://example.com", insecure)), at: "\(EXC).https://example.com", mentions: "use the key 'example.com'"),
        .silent("domain-scheme", exceptions(domain("example.com", insecure))),
        .fires("domain-port", exceptions(domain("example.com:8443", insecure)), at: "\(EXC).example.com:8443", mentions: "use the key 'example.com'"),
        .fires("domain-port", exceptions(domain("192.0.2.1:8080", insecure)), at: "\(EXC).192.0.2.1:8080", mentions: "use the key '192.0.2.1'"),
        .silent("domain-port", exceptions(domain("example.com", insecure))),
        .silent("domain-port", exceptions(domain("2001:db8::1", insecure))),
        .fires("domain-path", exceptions(domain("example.com/api", insecure)), at: "\(EXC).example.com/api", mentions: "use the key 'example.com'"),
        .silent("domain-path", exceptions(domain("10.0.0.0/8", insecure))),
        .fires("domain-wildcard", exceptions(domain("*.example.com", insecure)), at: "\(EXC).*.example.com", mentions: "'example.com' with NSIncludesSubdomains = true"),
        .silent("domain-wildcard", exceptions(domain("example.com", insecure + "<key>NSIncludesSubdomains</key><true/>"))),
        .fires("domain-uppercase", exceptions(domain("Example.COM", insecure)), at: "\(EXC).Example.COM", mentions: "use the key 'example.com'"),
        // Pin keys compare case-insensitively (SecPolicy.c parseNSPinnedDomains): not a finding there.
        .silent("domain-uppercase", pinned(domain("Example.com", leafPins))),
        .silent("domain-uppercase", exceptions(domain("example.com", insecure))),
        .silent("domain-uppercase", exceptions(domain("2001:DB8::1", insecure))),
        .fires("domain-trailing-dot", exceptions(domain("example.com.", insecure)), at: "\(EXC).example.com.", mentions: "use the key 'example.com'"),
        .fires("domain-trailing-dot", exceptions(domain("example.com.", insecure)), at: "\(EXC).example.com.", mentions: "matches only a URL whose host is written with the dot"),
        .fires("domain-trailing-dot", pinned(domain("example.com.", leafPins)), at: "\(PIN).example.com.", mentions: "matches no host"),
        .silent("domain-trailing-dot", exceptions(domain("example.com", insecure))),

        .fires("ip-key-release", exceptions(domain("192.0.2.1", insecure)), at: "\(EXC).192.0.2.1", mentions: "iOS 17 / macOS 14"),
        .fires("ip-key-release", exceptions(domain("10.0.0.0/8", insecure)), at: "\(EXC).10.0.0.0/8", mentions: "CIDR range key"),
        .fires("ip-key-release", exceptions(domain("2001:db8::/32", insecure)), at: "\(EXC).2001:db8::/32", mentions: "CIDR range key"),
        .silent("ip-key-release", exceptions(domain("example.com", insecure))),
        .silent("ip-key-release", exceptions(domain("10.0.0.0/33", insecure))),

        .fires("cidr-malformed", exceptions(domain("10.0.0.0/33", insecure)), at: "\(EXC).10.0.0.0/33", mentions: "from 0 to 32"),
        .fires("cidr-malformed", exceptions(domain("2001:db8::/129", insecure)), at: "\(EXC).2001:db8::/129", mentions: "from 0 to 128"),
        .fires("cidr-malformed", exceptions(domain("10.0.0.300", insecure)), at: "\(EXC).10.0.0.300", mentions: "is not an IPv4 address"),
        .fires("cidr-malformed", exceptions(domain("10.0.0.0/", insecure)), at: "\(EXC).10.0.0.0/", mentions: "prefix length"),
        .silent("cidr-malformed", exceptions(domain("10.0.0.0/8", insecure))),
        .silent("cidr-malformed", exceptions(domain("2001:db8::/32", insecure))),

        .fires("pin-missing-identities", pinned(domain("example.com", "<key>NSIncludesSubdomains</key><true/>")), at: "\(PIN).example.com", mentions: "pins nothing"),
        .silent("pin-missing-identities", pinned(domain("example.com", leafPins))),
        .fires("pin-empty-identities", pinned(domain("example.com", "<key>NSPinnedCAIdentities</key><array/>")), at: "\(PIN).example.com.NSPinnedCAIdentities", mentions: "empty array"),
        // SecPolicy.c parseNSPinnedDomains: an array with no readable identity pins the domain to nothing.
        .fires("pin-empty-identities", pinned(domain("example.com", "<key>NSPinnedCAIdentities</key><array>\(identity("not base64!"))</array>")),
               at: "\(PIN).example.com.NSPinnedCAIdentities", mentions: "every load to the domain fails pinning"),
        .fires("wrong-type", pinned(domain("example.com", "<key>NSPinnedCAIdentities</key><string>x</string>")),
               at: "\(PIN).example.com.NSPinnedCAIdentities", mentions: "every load to it fails pinning"),
        .fires("wrong-type", pinned(domain("example.com", "<key>NSIncludesSubdomains</key><integer>1</integer>" + leafPins)),
               at: "\(PIN).example.com.NSIncludesSubdomains", mentions: "counts only <true/>"),
        // SecProtocolConfiguration.m: the built-in apple.com entry is replaced by the app's.
        .fires("builtin-exception-replaced", exceptions(domain("apple.com", insecure)), at: "\(EXC).apple.com", mentions: "built-in exception"),
        .silent("builtin-exception-replaced", exceptions(domain("www.apple.com", insecure))),
        .silent("pin-empty-identities", pinned(domain("example.com", "<key>NSPinnedCAIdentities</key><array>\(identity(goodPin))</array>"))),
        .fires("pin-missing-spki", pinned(domain("example.com", "<key>NSPinnedLeafIdentities</key><array><dict/></array>")),
               at: "\(PIN).example.com.NSPinnedLeafIdentities[0]", mentions: "no SPKI-SHA256-BASE64"),
        .silent("pin-missing-spki", pinned(domain("example.com", leafPins))),
        .fires("pin-bad-base64", pinned(domain("example.com", "<key>NSPinnedLeafIdentities</key><array>\(identity("not base64!"))</array>")),
               at: "\(PIN).example.com.NSPinnedLeafIdentities[0].SPKI-SHA256-BASE64", mentions: "not valid base64"),
        .silent("pin-bad-base64", pinned(domain("example.com", leafPins))),
        .fires("pin-digest-length", pinned(domain("example.com", "<key>NSPinnedLeafIdentities</key><array>\(identity("EfatjsUqKYSrqv18O1FlA3hcIHI="))</array>")),
               at: "\(PIN).example.com.NSPinnedLeafIdentities[0].SPKI-SHA256-BASE64", mentions: "decodes to 20 bytes"),
        .fires("pin-digest-length", pinned(domain("example.com", "<key>NSPinnedCAIdentities</key><array>\(identity("9f91161f43433e49a6de6db680d79f60159f2e4ac9172621a12846428158440b"))</array>")),
               at: "\(PIN).example.com.NSPinnedCAIdentities[0].SPKI-SHA256-BASE64", mentions: "looks like hex"),
        .silent("pin-digest-length", pinned(domain("example.com", leafPins))),
    ]
}

import ATSAdvice
import ATSAppFixtures
import ATSPolicy
import ATSTestServers
import Foundation
import PropertyList
import Testing
import TLSFacts

/// One answer everywhere (issue 32, item 2; issue 39): for each row (an app's NSAppTransportSecurity
/// dictionary, the URL it loads, a loopback server and the root its chain ends at) `plist explain`
/// predicts, the public API (`PolicyExplanation`, `ATSLinter`) predicts in process, `plist check`
/// and `app` observe, `plist lint` finds, and the tightener rewrites; the table checks that they
/// say one thing:
/// - the domain keys are matched by one function (`DomainKeys`, Apple's lookups): exception keys
///   exactly (capitals and trailing dots never match a URL host), pin keys case-insensitively
///   one label up, IP and CIDR keys by prefix; a key the lookup misses is a lint error and a note
///   naming the rename in explain, check and app;
/// - `app` judges local names and addresses it finds in the executable (no `--hosts-only`);
/// - `--rules` asked by release (`ios14`, `ios16`, `ios17.2`, `macos26`) judges as that release;
/// - explain's entry and exemption are the ones check and app loaded under, and the three print
///   the same notes (values Apple's reader ignores, near-miss keys and the entry a rename would
///   cover, the CT key, built-in exceptions);
/// - explain's Certificate Transparency scope ("everyRoot" exactly when the governing entry sets
///   NSRequiresCertificateTransparency), check's and app's observed effect of the key on the
///   chain's root (redundant on a CT-required root, required on a user-installed one, failing the
///   load there without SCTs), and lint's finding on the key;
/// - check's and app's verdicts are the row's, and their tightened dictionaries are the same,
///   pass the default lint, and (where some dictionary can make the load pass) pass the load.
///
/// The chains end either at a user-installed root (`--ca-file`) or at a CT-required (public) root:
/// the test root put in OpenSSL's system store (SSL_CERT_FILE with `--trust-store system`, as
/// TrustEndToEndTests does), with test CT logs (`--ct-log-list`) and the clock fixed (`--at`).
@Suite("Agreement: explain, check, app, lint and the tightener give one answer")
struct AgreementTableTests {
    enum Root: String, Sendable { case user, ctRequired }

    enum Server: Sendable {
        /// TLS 1.2, ECDHE with AES-GCM (passes default ATS).
        case tls12
        /// TLS 1.1 only.
        case tls11
        /// TLS 1.2 with TLS_RSA_WITH_AES_128_GCM_SHA256 only (needs NSExceptionRequiresForwardSecrecy = NO).
        case rsaOnly
        /// TLS 1.2 with ECDHE-RSA-AES128-SHA256 only: in the documented list (iOS 13 - 15.3), not in
        /// Security-60158's (iOS 15.4 and later).
        case cbcSHA256
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var ats: [String: PropertyListValue]
        /// The host the app loads over https (IP literals allowed).
        var host: String
        var server: Server = .tls12
        var root: Root = .user
        /// The leaf embeds SCTs from three test logs of three operators (Apple's CT policy met).
        var scts = false
        var rules = "ios26"
        /// check's and app's verdict under the app's dictionary.
        var passes: Bool
        /// Some dictionary makes the load pass (false: CT required by the root and no SCTs).
        var fixable = true
        /// explain's TLS-required prediction.
        var tlsRequired: Bool
        /// explain's reason (PolicyExplanation.Reason).
        var reason: String
        /// Lint rule ids that must be among the dictionary's findings.
        var lint: Set<String> = []
        /// Text that must be in one of the notes explain, check and app print.
        var note: String?
        /// Lint rule ids that must not be among the findings.
        var lintAbsent: Set<String> = []
        /// `app` finds the URL in the executable (no `--hosts-only`): the dictionary names no other host.
        var appFinds = false
        /// The leaf's lifetime (notAfter - notBefore), seconds.
        var lifetime: Double = 90 * 86_400 - 1

        var testDescription: String { name }
        var setsCTKey: Bool {
            ats["NSExceptionDomains"]?.dictionaryValue?.values.contains { $0["NSRequiresCertificateTransparency"] == .boolean(true) } ?? false
        }
    }

    static let ct = "NSRequiresCertificateTransparency"
    static let subdomain: [String: PropertyListValue] = ["NSIncludesSubdomains": true]

    static let rows: [Row] = [
        // The CT key on user-installed and CT-required roots.
        Row(name: "CT key, user root, no SCTs: the key fails the load", ats: ["NSExceptionDomains": ["ct.agree.test": [ct: true]]],
            host: "ct.agree.test", passes: false, tlsRequired: true, reason: "exception", lint: ["obsolete-key"],
            note: "\(ct) in the entry \"ct.agree.test\": CT is required for every chain"),
        Row(name: "CT key, user root, no SCTs, documented", ats: ["NSExceptionDomains": ["ct.agree.test": [ct: true]]],
            host: "ct.agree.test", rules: "documented", passes: false, tlsRequired: true, reason: "exception", lint: ["obsolete-key"]),
        Row(name: "CT key, user root, no SCTs, ios16", ats: ["NSExceptionDomains": ["ct.agree.test": [ct: true]]],
            host: "ct.agree.test", rules: "ios16", passes: false, tlsRequired: true, reason: "exception", lint: ["obsolete-key"]),
        Row(name: "CT key, user root, SCTs: the key is met", ats: ["NSExceptionDomains": ["ct.agree.test": [ct: true]]],
            host: "ct.agree.test", scts: true, passes: true, tlsRequired: true, reason: "exception", lint: ["obsolete-key"]),
        Row(name: "CT key, CT-required root, SCTs: the key is redundant", ats: ["NSExceptionDomains": ["ct.agree.test": [ct: true]]],
            host: "ct.agree.test", root: .ctRequired, scts: true, passes: true, tlsRequired: true, reason: "exception", lint: ["obsolete-key"]),
        Row(name: "CT key, CT-required root, no SCTs: the root fails it", ats: ["NSExceptionDomains": ["ct.agree.test": [ct: true]]],
            host: "ct.agree.test", root: .ctRequired, passes: false, fixable: false, tlsRequired: true, reason: "exception", lint: ["obsolete-key"]),
        Row(name: "CT key on a parent entry with subdomains, user root", ats: ["NSExceptionDomains": ["agree.test": ["NSIncludesSubdomains": true, ct: true]]],
            host: "api.agree.test", passes: false, tlsRequired: true, reason: "exception", lint: ["obsolete-key"]),
        Row(name: "CT key NO, user root", ats: ["NSExceptionDomains": ["ct.agree.test": [ct: false]]],
            host: "ct.agree.test", passes: true, tlsRequired: true, reason: "exception", lint: ["no-op-exception-domain"]),
        Row(name: "no CT key, user root, no SCTs", ats: [:], host: "ct.agree.test", passes: true, tlsRequired: true, reason: "defaults"),
        Row(name: "no CT key, CT-required root, SCTs", ats: [:], host: "ct.agree.test", root: .ctRequired, scts: true,
            passes: true, tlsRequired: true, reason: "defaults"),
        Row(name: "no CT key, CT-required root, no SCTs", ats: [:], host: "ct.agree.test", root: .ctRequired,
            passes: false, fixable: false, tlsRequired: true, reason: "defaults"),

        // Near misses: offered as a rename, the entry it would cover named.
        Row(name: "NSIncludesSubdomain on the parent, TLS 1.1", ats: ["NSExceptionDomains": ["agree.test": ["NSIncludesSubdomain": true, "NSExceptionMinimumTLSVersion": "TLSv1.1"]]],
            host: "api.agree.test", server: .tls11, passes: false, tlsRequired: true, reason: "defaults", lint: ["unknown-key"],
            note: "as written the entry \"agree.test\" does not cover api.agree.test; renamed to NSIncludesSubdomains, it would"),
        Row(name: "NSIncludesSubdomain on the parent, TLS 1.2", ats: ["NSExceptionDomains": ["agree.test": ["NSIncludesSubdomain": true, "NSExceptionMinimumTLSVersion": "TLSv1.1"]]],
            host: "api.agree.test", passes: true, tlsRequired: true, reason: "defaults", lint: ["unknown-key"],
            note: "renamed to NSIncludesSubdomains, it would"),
        Row(name: "NSAllowArbitraryLoads (global typo), TLS 1.1", ats: ["NSAllowArbitraryLoads": true], host: "api.agree.test", server: .tls11,
            passes: false, tlsRequired: true, reason: "defaults", lint: ["unknown-key"], note: "did you mean NSAllowsArbitraryLoads?"),
        Row(name: "NSExceptionAllowInsecureHTTPLoads in the host's entry", ats: ["NSExceptionDomains": ["api.agree.test": ["NSExceptionAllowInsecureHTTPLoads": true]]],
            host: "api.agree.test", passes: true, tlsRequired: true, reason: "exception", lint: ["unknown-key"],
            note: "did you mean NSExceptionAllowsInsecureHTTPLoads?"),

        // Values Apple's reader ignores: the string "NO" (and "YES").
        Row(name: "NSExceptionRequiresForwardSecrecy = \"NO\", TLS_RSA server", ats: ["NSExceptionDomains": ["api.agree.test": ["NSExceptionRequiresForwardSecrecy": "NO"]]],
            host: "api.agree.test", server: .rsaOnly, passes: false, tlsRequired: true, reason: "exception", lint: ["wrong-type"],
            note: "holds the string 'NO': Apple's reader ignores it"),
        Row(name: "NSExceptionRequiresForwardSecrecy = false, TLS_RSA server", ats: ["NSExceptionDomains": ["api.agree.test": ["NSExceptionRequiresForwardSecrecy": false]]],
            host: "api.agree.test", server: .rsaOnly, passes: true, tlsRequired: true, reason: "exception"),
        Row(name: "NSAllowsArbitraryLoads = \"NO\"", ats: ["NSAllowsArbitraryLoads": "NO"], host: "api.agree.test",
            passes: true, tlsRequired: true, reason: "defaults", lint: ["wrong-type"], note: "NSAllowsArbitraryLoads holds the string 'NO'"),
        Row(name: "NSAllowsArbitraryLoads = \"YES\", TLS 1.1", ats: ["NSAllowsArbitraryLoads": "YES"], host: "api.agree.test", server: .tls11,
            passes: false, tlsRequired: true, reason: "defaults", lint: ["wrong-type"], note: "NSAllowsArbitraryLoads holds the string 'YES'"),
        Row(name: "NSAllowsLocalNetworking = \"NO\" for localhost, TLS 1.1", ats: ["NSAllowsLocalNetworking": "NO"], host: "localhost", server: .tls11,
            passes: false, tlsRequired: false, reason: "localNetworking", lint: ["wrong-type"], note: "NSAllowsLocalNetworking holds the string 'NO'"),

        // Local networking.
        Row(name: "localhost, no keys, ios26", ats: [:], host: "localhost", server: .tls11, passes: false, tlsRequired: false, reason: "localNetworking"),
        Row(name: "localhost, no keys, TLS 1.2, ios26", ats: [:], host: "localhost", passes: true, tlsRequired: false, reason: "localNetworking"),
        Row(name: "localhost, NSAllowsLocalNetworking NO", ats: ["NSAllowsLocalNetworking": false], host: "localhost", server: .tls11,
            passes: false, tlsRequired: true, reason: "defaults"),
        Row(name: "localhost, no keys, documented", ats: [:], host: "localhost", server: .tls11, rules: "documented",
            passes: false, tlsRequired: true, reason: "defaults"),
        Row(name: "localhost, NSAllowsLocalNetworking YES, documented", ats: ["NSAllowsLocalNetworking": true], host: "localhost", server: .tls11,
            rules: "documented", passes: true, tlsRequired: false, reason: "localNetworking"),

        // IP addresses.
        Row(name: "127.0.0.1, no keys, ios26", ats: [:], host: "127.0.0.1", server: .tls11, passes: false, tlsRequired: false, reason: "localNetworking"),
        Row(name: "127.0.0.1, NSAllowsLocalNetworking NO, ios16", ats: ["NSAllowsLocalNetworking": false], host: "127.0.0.1", server: .tls11, rules: "ios16",
            passes: true, tlsRequired: false, reason: "ipAddressBeforeIOS17"),
        Row(name: "127.0.0.1, NSAllowsLocalNetworking NO, ios17", ats: ["NSAllowsLocalNetworking": false], host: "127.0.0.1", server: .tls11,
            rules: "ios17", passes: false, tlsRequired: true, reason: "defaults"),
        Row(name: "127.0.0.0/8 entry TLSv1.1, ios26", ats: ["NSAllowsLocalNetworking": false, "NSExceptionDomains": ["127.0.0.0/8": ["NSExceptionMinimumTLSVersion": "TLSv1.1"]]],
            host: "127.0.0.1", server: .tls11, passes: true, tlsRequired: true, reason: "exception"),

        // Apple's built-in exceptions. Not is.autonavi.com: it is also in Apple's system pinning list
        // (policy Personalization, Apple's anchors only), which no test chain meets (docs/trust.md).
        Row(name: "is.autonavi.com under its built-in exception, TLS 1.1", ats: [:], host: "is.autonavi.com", server: .tls11,
            passes: true, tlsRequired: false, reason: "builtInException", note: "one of Apple's built-in exceptions"),
        Row(name: "is.autonavi.com, documented (no built-ins)", ats: [:], host: "is.autonavi.com", server: .tls11, rules: "documented",
            passes: false, tlsRequired: true, reason: "defaults"),
        Row(name: "is.autonavi.com, the app's entry replaces the built-in one", ats: ["NSExceptionDomains": ["is.autonavi.com": ["NSIncludesSubdomains": true]]],
            host: "is.autonavi.com", server: .tls11, passes: false, tlsRequired: true, reason: "exception", lint: ["builtin-exception-replaced"]),

        // Pins.
        Row(name: "pinned leaf that matches", ats: ["NSPinnedDomains": ["api.agree.test": ["NSPinnedLeafIdentities": [["SPKI-SHA256-BASE64": "LEAF"]]]]],
            host: "api.agree.test", passes: true, tlsRequired: true, reason: "defaults"),
        Row(name: "pinned leaf that matches nothing served", ats: ["NSPinnedDomains": ["api.agree.test": ["NSPinnedLeafIdentities": [["SPKI-SHA256-BASE64": "uZ/e6bCmjvzN4SRFnQ5n+y2BhkNJXyzuNxJiVAswpzQ="]]]]],
            host: "api.agree.test", passes: false, tlsRequired: true, reason: "defaults"),
        Row(name: "pinned leaf beside a CT key, user root", ats: ["NSPinnedDomains": ["api.agree.test": ["NSPinnedLeafIdentities": [["SPKI-SHA256-BASE64": "LEAF"]]]],
                                                                    "NSExceptionDomains": ["api.agree.test": [ct: true]]],
            host: "api.agree.test", passes: false, tlsRequired: true, reason: "exception", lint: ["obsolete-key"]),

        // Minimum TLS versions, under each rule set.
        Row(name: "TLSv1.1 entry, TLS 1.2 server", ats: ["NSExceptionDomains": ["api.agree.test": ["NSExceptionMinimumTLSVersion": "TLSv1.1"]]],
            host: "api.agree.test", passes: true, tlsRequired: true, reason: "exception", lint: ["review-justification"]),
        Row(name: "TLSv1.1 entry, TLS 1.1 server, ios15.4", ats: ["NSExceptionDomains": ["api.agree.test": ["NSExceptionMinimumTLSVersion": "TLSv1.1"]]],
            host: "api.agree.test", server: .tls11, rules: "ios15.4", passes: true, tlsRequired: true, reason: "exception"),
        Row(name: "unparsed minimum \"1.1\", TLS 1.1 server", ats: ["NSExceptionDomains": ["api.agree.test": ["NSExceptionMinimumTLSVersion": "1.1"]]],
            host: "api.agree.test", server: .tls11, passes: false, tlsRequired: true, reason: "exception", lint: ["tls-version-unparsed"],
            note: "is not a value Apple reads"),
        Row(name: "NSAllowsArbitraryLoads for one TLS 1.1 host, ios16", ats: ["NSAllowsArbitraryLoads": true], host: "api.agree.test", server: .tls11,
            rules: "ios16", passes: true, tlsRequired: false, reason: "arbitraryLoads", lint: ["review-justification"]),
        Row(name: "TLS_RSA server, no exception, documented", ats: [:], host: "api.agree.test", server: .rsaOnly, rules: "documented",
            passes: false, tlsRequired: true, reason: "defaults"),
    ] + issue39Rows

    static let renamed = "renamed to"
    static let pfsNo: [String: PropertyListValue] = ["NSExceptionRequiresForwardSecrecy": false]
    static let tls11Entry: [String: PropertyListValue] = ["NSExceptionMinimumTLSVersion": "TLSv1.1"]
    static let leafPin: [String: PropertyListValue] = ["NSPinnedLeafIdentities": [["SPKI-SHA256-BASE64": "LEAF"]]]
    static let otherPin: [String: PropertyListValue] = ["NSPinnedLeafIdentities": [["SPKI-SHA256-BASE64": "uZ/e6bCmjvzN4SRFnQ5n+y2BhkNJXyzuNxJiVAswpzQ="]]]
    static let otherPinSubdomains: [String: PropertyListValue] = otherPin.merging(["NSIncludesSubdomains": true]) { a, _ in a }

    /// Issue 39: one matcher, local names in app, rule sets by release, lifetimes by era.
    static let issue39Rows: [Row] = [
        // Exception keys: stored as written, looked up exactly (SecProtocolConfiguration.m).
        Row(name: "exception key PFS5.Test: never matches pfs5.test", ats: ["NSExceptionDomains": ["PFS5.Test": .dictionary(pfsNo)]],
            host: "pfs5.test", server: .rsaOnly, passes: false, tlsRequired: true, reason: "defaults", lint: ["domain-uppercase"],
            note: "key \"PFS5.Test\" does not apply to pfs5.test"),
        Row(name: "exception key pfs5.test: matches", ats: ["NSExceptionDomains": ["pfs5.test": .dictionary(pfsNo)]],
            host: "pfs5.test", server: .rsaOnly, passes: true, tlsRequired: true, reason: "exception", lintAbsent: ["domain-uppercase"]),
        Row(name: "exception key PFS5.Test, ios16 (iOS 16)", ats: ["NSExceptionDomains": ["PFS5.Test": .dictionary(pfsNo)]],
            host: "pfs5.test", server: .rsaOnly, rules: "ios16", passes: false, tlsRequired: true, reason: "defaults", lint: ["domain-uppercase"],
            note: "renamed to \"pfs5.test\", it would"),
        Row(name: "exception key Agree.Test with subdomains: the parent walk misses it", ats: ["NSExceptionDomains": ["Agree.Test": .dictionary(tls11Entry.merging(subdomain) { a, _ in a })]],
            host: "api.agree.test", server: .tls11, passes: false, tlsRequired: true, reason: "defaults", lint: ["domain-uppercase"],
            note: "renamed to \"agree.test\", it would"),
        Row(name: "exception key agree.test with subdomains: the parent walk finds it", ats: ["NSExceptionDomains": ["agree.test": .dictionary(tls11Entry.merging(subdomain) { a, _ in a })]],
            host: "api.agree.test", server: .tls11, rules: "ios16", passes: true, tlsRequired: true, reason: "exception"),
        Row(name: "PFS5.Test beside pfs5.test: the lower-case entry governs", ats: ["NSExceptionDomains": ["PFS5.Test": .dictionary(pfsNo), "pfs5.test": [:]]],
            host: "pfs5.test", server: .rsaOnly, passes: false, tlsRequired: true, reason: "exception", lint: ["domain-uppercase"]),
        Row(name: "exception key with a trailing dot: never matches the host without it", ats: ["NSExceptionDomains": ["api.agree.test.": .dictionary(tls11Entry)]],
            host: "api.agree.test", server: .tls11, passes: false, tlsRequired: true, reason: "defaults", lint: ["domain-trailing-dot"],
            note: "renamed to \"api.agree.test\", it would"),
        Row(name: "parent key with a trailing dot and subdomains: the walk misses it", ats: ["NSExceptionDomains": ["agree.test.": .dictionary(tls11Entry.merging(subdomain) { a, _ in a })]],
            host: "api.agree.test", server: .tls11, rules: "macos13", passes: false, tlsRequired: true, reason: "defaults", lint: ["domain-trailing-dot"],
            note: "renamed to \"agree.test\", it would"),
        Row(name: "NSExceptionRequiresForwardSecrecy NO, TLS_RSA server, ios14", ats: ["NSExceptionDomains": ["api.agree.test": .dictionary(pfsNo)]],
            host: "api.agree.test", server: .rsaOnly, rules: "ios14", passes: true, tlsRequired: true, reason: "exception"),

        // Pin keys: case-insensitive, trailing dot stripped, immediate parent only (SecPolicy.c).
        Row(name: "pin key API.Agree.Test applies (matching leaf)", ats: ["NSPinnedDomains": ["API.Agree.Test": .dictionary(leafPin)]],
            host: "api.agree.test", passes: true, tlsRequired: true, reason: "defaults", lintAbsent: ["domain-uppercase"]),
        Row(name: "pin key API.Agree.Test applies (other leaf): the load fails", ats: ["NSPinnedDomains": ["API.Agree.Test": .dictionary(otherPin)]],
            host: "api.agree.test", passes: false, tlsRequired: true, reason: "defaults", lintAbsent: ["domain-uppercase"]),
        Row(name: "pin key on the parent with subdomains applies one label down", ats: ["NSPinnedDomains": ["agree.test": .dictionary(otherPinSubdomains)]],
            host: "api.agree.test", passes: false, tlsRequired: true, reason: "defaults"),
        Row(name: "pin key Agree.Test on the parent with subdomains applies", ats: ["NSPinnedDomains": ["Agree.Test": .dictionary(otherPinSubdomains)]],
            host: "api.agree.test", passes: false, tlsRequired: true, reason: "defaults", lintAbsent: ["domain-uppercase"]),
        Row(name: "pin key on the grandparent does not apply", ats: ["NSPinnedDomains": ["agree.test": .dictionary(otherPinSubdomains)]],
            host: "x.api.agree.test", passes: true, tlsRequired: true, reason: "defaults"),
        Row(name: "pin key with a trailing dot matches no host", ats: ["NSPinnedDomains": ["api.agree.test.": .dictionary(otherPin)]],
            host: "api.agree.test", passes: true, tlsRequired: true, reason: "defaults", lint: ["domain-trailing-dot"],
            note: "renamed to \"api.agree.test\", it would"),

        // IP and CIDR keys (iOS 17 and later), asked by release.
        Row(name: "IP key 127.0.0.1 TLSv1.1, ios17.2", ats: ["NSAllowsLocalNetworking": false, "NSExceptionDomains": ["127.0.0.1": .dictionary(tls11Entry)]],
            host: "127.0.0.1", server: .tls11, rules: "ios17.2", passes: true, tlsRequired: true, reason: "exception"),
        Row(name: "the longest prefix wins: /32 over /8", ats: ["NSAllowsLocalNetworking": false,
                                                                   "NSExceptionDomains": ["127.0.0.0/8": .dictionary(tls11Entry), "127.0.0.1/32": ["NSExceptionRequiresForwardSecrecy": false]]],
            host: "127.0.0.1", server: .tls11, passes: false, tlsRequired: true, reason: "exception"),
        Row(name: "CIDR key, ios16: IP addresses are not under ATS on iOS 16", ats: ["NSAllowsLocalNetworking": false, "NSExceptionDomains": ["127.0.0.0/8": .dictionary(tls11Entry)]],
            host: "127.0.0.1", server: .tls11, rules: "ios16", passes: true, tlsRequired: false, reason: "ipAddressBeforeIOS17"),
        Row(name: "CIDR key, macos14", ats: ["NSAllowsLocalNetworking": false, "NSExceptionDomains": ["127.0.0.0/8": .dictionary(tls11Entry)]],
            host: "127.0.0.1", server: .tls11, rules: "macos14", passes: true, tlsRequired: true, reason: "exception"),
        Row(name: "127.0.0.1, NSAllowsLocalNetworking NO, ios14", ats: ["NSAllowsLocalNetworking": false], host: "127.0.0.1", server: .tls11, rules: "ios14",
            passes: true, tlsRequired: false, reason: "ipAddressBeforeIOS17"),
        Row(name: "127.0.0.1, NSAllowsLocalNetworking NO, ios16", ats: ["NSAllowsLocalNetworking": false], host: "127.0.0.1", server: .tls11, rules: "ios16",
            passes: true, tlsRequired: false, reason: "ipAddressBeforeIOS17"),
        Row(name: "127.0.0.1, NSAllowsLocalNetworking NO, ios17.2", ats: ["NSAllowsLocalNetworking": false], host: "127.0.0.1", server: .tls11, rules: "ios17.2",
            passes: false, tlsRequired: true, reason: "defaults"),
        Row(name: "127.0.0.1, NSAllowsLocalNetworking NO, macos26", ats: ["NSAllowsLocalNetworking": false], host: "127.0.0.1", server: .tls11, rules: "macos26",
            passes: false, tlsRequired: true, reason: "defaults"),

        // Local names app finds in its executable: judged, never filtered out (issue 39, item 2).
        Row(name: "printer.local found by app, NSAllowsLocalNetworking NO", ats: ["NSAllowsLocalNetworking": false], host: "printer.local", server: .tls11,
            passes: false, tlsRequired: true, reason: "defaults", appFinds: true),
        Row(name: "printer.local found by app, no keys, ios26", ats: [:], host: "printer.local", server: .tls11,
            passes: false, tlsRequired: false, reason: "localNetworking", appFinds: true),
        Row(name: "printer.local found by app, no keys, ios16", ats: [:], host: "printer.local", server: .tls11, rules: "ios16",
            passes: true, tlsRequired: false, reason: "localNetworking", appFinds: true),
        Row(name: "printer.local found by app, no keys, ios14 (documentation's reading)", ats: [:], host: "printer.local", server: .tls11, rules: "ios14",
            passes: false, tlsRequired: true, reason: "defaults", appFinds: true),
        Row(name: "printer.local found by app, TLS 1.2, NSAllowsLocalNetworking NO", ats: ["NSAllowsLocalNetworking": false], host: "printer.local",
            passes: true, tlsRequired: true, reason: "defaults", appFinds: true),
        Row(name: "localhost found by app, NSAllowsLocalNetworking NO, ios16", ats: ["NSAllowsLocalNetworking": false], host: "localhost", server: .tls11,
            rules: "ios16", passes: false, tlsRequired: true, reason: "defaults", appFinds: true),
        Row(name: "127.0.0.1 found by app, no keys, ios26", ats: [:], host: "127.0.0.1", server: .tls11,
            passes: false, tlsRequired: false, reason: "localNetworking", appFinds: true),

        // Rule sets by release: a server offering only ECDHE-RSA-AES128-SHA256.
        Row(name: "ECDHE-RSA-AES128-SHA256 only, ios14 (iOS 13 - 15.3)", ats: [:], host: "api.agree.test", server: .cbcSHA256, rules: "ios14",
            passes: true, tlsRequired: true, reason: "defaults"),
        Row(name: "ECDHE-RSA-AES128-SHA256 only, ios16 (iOS 15.4 - 16)", ats: [:], host: "api.agree.test", server: .cbcSHA256, rules: "ios16",
            passes: false, fixable: false, tlsRequired: true, reason: "defaults"),
        Row(name: "ECDHE-RSA-AES128-SHA256 only, ios17.2", ats: [:], host: "api.agree.test", server: .cbcSHA256, rules: "ios17.2",
            passes: false, fixable: false, tlsRequired: true, reason: "defaults"),
        Row(name: "ECDHE-RSA-AES128-SHA256 only, macos26", ats: [:], host: "api.agree.test", server: .cbcSHA256, rules: "macos26",
            passes: false, fixable: false, tlsRequired: true, reason: "defaults"),
        Row(name: "ECDHE-RSA-AES128-SHA256 only, documented", ats: [:], host: "api.agree.test", server: .cbcSHA256, rules: "documented",
            passes: true, tlsRequired: true, reason: "defaults"),
        Row(name: "TLSv1.1 entry, TLS 1.1 server, macos13", ats: ["NSExceptionDomains": ["api.agree.test": .dictionary(tls11Entry)]],
            host: "api.agree.test", server: .tls11, rules: "macos13", passes: true, tlsRequired: true, reason: "exception"),
        Row(name: "CT key, user root, no SCTs, ios17.2", ats: ["NSExceptionDomains": ["ct.agree.test": [ct: true]]],
            host: "ct.agree.test", rules: "ios17.2", passes: false, tlsRequired: true, reason: "exception", lint: ["obsolete-key"]),

        // Lifetimes counted as each era's code counts them: 825 days and one hour of slip
        // (SecPolicyServer.c, Security-59306 to -61901); the published rule counts 826 days.
        Row(name: "leaf of 825 days and 30 minutes, ios14", ats: [:], host: "api.agree.test", rules: "ios14",
            passes: true, tlsRequired: true, reason: "defaults", lifetime: 825 * 86_400 + 1_800),
        Row(name: "leaf of 825 days and 30 minutes, ios16", ats: [:], host: "api.agree.test", rules: "ios16",
            passes: true, tlsRequired: true, reason: "defaults", lifetime: 825 * 86_400 + 1_800),
        Row(name: "leaf of 825 days and 30 minutes, documented", ats: [:], host: "api.agree.test", rules: "documented",
            passes: false, fixable: false, tlsRequired: true, reason: "defaults", lifetime: 825 * 86_400 + 1_800),
        Row(name: "leaf of 825 days and 2 hours, ios14", ats: [:], host: "api.agree.test", rules: "ios14",
            passes: false, fixable: false, tlsRequired: true, reason: "defaults", lifetime: 825 * 86_400 + 7_200),
    ]

    static let issued = ISO8601DateFormatter().date(from: "2025-03-01T00:00:00Z")!
    static let logs = [try! TestCTLog(name: "Agreement log A", operator: "Op A"), try! TestCTLog(name: "Agreement log B", operator: "Op B"),
                       try! TestCTLog(name: "Agreement log C", operator: "Op C")]

    @Test("Every command gives the row one answer", arguments: rows)
    func oneAnswer(_ row: Row) async throws {
        let fixture = try PlistFixture()
        let names = Target.isIPAddress(row.host) ? ["localhost"] : [row.host]
        let spec = CertificateSpec(commonName: names[0], dnsNames: names, ipAddresses: ["127.0.0.1", "::1"],
                                   key: [.rsaOnly, .cbcSHA256].contains(row.server) ? .rsa(bits: 2048) : .ec(curve: .p256),
                                   notBefore: Self.issued, notAfter: Self.issued.addingTimeInterval(row.lifetime),
                                   embeddedSCTs: row.scts ? Self.logs.map { TestSCT(log: $0, timestamp: Self.issued) } : [])
        let identity = try fixture.pki.issue(spec)
        let ats = Self.pinning(row.ats, leaf: identity.spkiSHA256Base64)
        let logList = try fixture.write(Data(TestCTLog.logListJSON(Self.logs, since: TrustSupportDates.logsSince).utf8), name: "log_list.json")

        let configuration: TLSServerConfiguration = switch row.server {
        case .tls12: TLSServerConfiguration(identity: identity, minVersion: .tls12, maxVersion: .tls12)
        case .tls11: TLSServerConfiguration(identity: identity, minVersion: .tls11, maxVersion: .tls11)
        case .rsaOnly: TLSServerConfiguration(identity: identity, minVersion: .tls12, maxVersion: .tls12, cipherList: "AES128-GCM-SHA256")
        case .cbcSHA256: TLSServerConfiguration(identity: identity, minVersion: .tls12, maxVersion: .tls12, cipherList: "ECDHE-RSA-AES128-SHA256")
        }
        let server = try TestTLSServer.start(configuration)
        defer { server.stop() }
        let url = "https://\(row.host):\(server.port)/"

        var app = AppFixture()
        app.files["Info.plist"] = AppFixture.infoPlist(identifier: "test.atsprobe.agree", executable: "Demo", ats: ats)
        // app finds the URL in the executable (local names and addresses included), or is told it.
        app.files["Demo"] = AppFixture.executable(strings: row.appFinds ? [url] : [])
        let bundle = try app.writeApp(in: fixture.directory.path)
        let infoPlist = bundle + "/Info.plist"
        var connect = ["--timeout", "5", "--rules", row.rules, "--at", "2025-03-10", "--ct-log-list", logList]
        if !Target.isIPAddress(row.host) {
            // The URL's port, and 443: app also checks the hosts its dictionary names, on 443.
            connect += ["--connect-to", "\(row.host):\(server.port):127.0.0.1:\(server.port)", "--connect-to", "\(row.host):443:127.0.0.1:\(server.port)"]
        }
        var environment: [String: String] = [:]
        switch row.root {
        case .user: connect += ["--ca-file", fixture.rootPath]
        case .ctRequired:
            connect += ["--trust-store", "system"]
            environment["SSL_CERT_FILE"] = fixture.rootPath
        }
        let hosts = try fixture.write(Data("\(url)\n".utf8), name: "hosts.txt")

        // The prediction, the findings, the two observations.
        async let explainRun = BinaryRunner.run(["plist", "explain", infoPlist, url, "--rules", row.rules, "--json"], timeout: 60)
        async let lintRun = BinaryRunner.run(["plist", "lint", infoPlist, "--format", "json"], timeout: 60)
        async let checkRun = BinaryRunner.run(["plist", "check", infoPlist, url, "--json"] + connect, timeout: 120, environment: environment)
        async let appRun = BinaryRunner.run(["app", bundle] + (row.appFinds ? [] : ["--hosts-only", hosts]) + ["--json"] + connect,
                                            timeout: 120, environment: environment)
        let (explainResult, lintResult, checkResult, appResult) = try await (explainRun, lintRun, checkRun, appRun)

        let explainDocument = try #require(jsonObject(explainResult.stdout), "explain: \(explainResult.stdout)\n\(explainResult.stderr)")
        let explain = try #require((explainDocument["results"] as? [[String: Any]])?.first)
        let lint = try #require(jsonArrayOrFindings(lintResult.stdout), "lint: \(lintResult.stdout)\n\(lintResult.stderr)")
        let checkDocument = try #require(jsonObject(checkResult.stdout), "check: \(checkResult.stdout)\n\(checkResult.stderr)")
        let check = try #require((checkDocument["targets"] as? [[String: Any]])?.first)
        let appDocument = try #require(jsonObject(appResult.stdout), "app: \(appResult.stdout)\n\(appResult.stderr)")
        // app judged the row's host (found in the executable or asked for): never filtered out.
        let appCheck = try #require((appDocument["checks"] as? [[String: Any]])?.first { $0["host"] as? String == row.host }?["check"] as? [String: Any],
                                    "app: \(appResult.stdout)")
        if row.rules == "ios16" {
            #expect(explainResult.stderr.contains("note: --rules ios16 means iOS 16 (rule set ios15.4"), "explain: \(explainResult.stderr)")
        }

        // The public API, in process: the same prediction and the same findings.
        let (ruleSet, _) = try #require(RuleSet.resolve(row.rules), "rule set \(row.rules)")
        let written = try #require(PropertyListValue.dictionary(ats).dictionaryValue)
        let api = PolicyExplanation(target: try Target(parsing: url), configuration: ATSConfiguration(propertyList: written), ruleSet: ruleSet)
        #expect(api.tlsRequired == row.tlsRequired, "API: \(api)")
        #expect(api.reason.rawValue == row.reason, "API: \(api)")
        #expect(api.entry?.key == (explain["entry"] as? [String: Any])?["key"] as? String)
        #expect(api.notes == explain["notes"] as? [String], "API notes: \(api.notes)")
        let apiLint = Set(ATSLinter.lint(["NSAppTransportSecurity": .dictionary(ats)]).map(\.rule))

        // explain's prediction is the row's, and what check and app loaded under.
        #expect(explain["tlsRequired"] as? Bool == row.tlsRequired, "explain: \(explain)")
        #expect(explain["reason"] as? String == row.reason, "explain: \(explain)")
        let predictedEntry = (explain["entry"] as? [String: Any])?["key"] as? String
        for observed in [check, appCheck] {
            #expect(observed["entry"] as? String == predictedEntry, "entry: \(observed)")
            let exemption = observed["exemption"] as? String
            #expect(exemption == (["localNetworking", "arbitraryLoads", "ipAddressBeforeIOS17"].contains(row.reason) ? row.reason : nil))
            // One set of notes: the same judgement, whichever command asks.
            #expect(observed["notes"] as? [String] == explain["notes"] as? [String], "notes: \(observed["notes"] ?? "-") vs \(explain["notes"] ?? "-")")
            #expect(observed["passes"] as? Bool == row.passes, "\(row.name): \(observed)")
        }
        if let note = row.note {
            #expect((explain["notes"] as? [String] ?? []).contains { $0.contains(note) }, "explain notes: \(explain["notes"] ?? "-")")
        }

        // Certificate Transparency: the prediction, the observation and the finding agree.
        let keySet = row.setsCTKey
        #expect(explain["certificateTransparency"] as? String == (keySet ? "everyRoot" : "ctRequiredRoots"), "explain: \(explain)")
        let expectedEffect: String? = !keySet ? nil : row.root == .ctRequired ? "redundant" : "requiresCertificateTransparency"
        let keyFails = keySet && row.root == .user && !row.scts
        for observed in [check, appCheck] {
            #expect(observed["certificateTransparencyKey"] as? String == expectedEffect, "\(observed)")
            #expect(observed["certificateTransparencyKeyFails"] as? Bool == keyFails, "\(observed)")
        }
        let lintRules = Set(lint.compactMap { $0["rule"] as? String })
        #expect(lintRules.contains("obsolete-key") == keySet, "lint: \(lintRules)")
        #expect(row.lint.isSubset(of: lintRules), "lint: \(lintRules), expected \(row.lint)")
        #expect(row.lintAbsent.isDisjoint(with: lintRules), "lint: \(lintRules), not expected \(row.lintAbsent)")
        #expect(apiLint == lintRules, "API lint: \(apiLint)")

        // One tightened dictionary, from check and from app.
        let tightened = try #require(checkDocument["tightened"] as? [String: Any])
        let appBundle = try #require((appDocument["bundles"] as? [[String: Any]])?.first { $0["path"] as? String == "" }, "app: \(appResult.stdout)")
        let appTightened = try #require(appBundle["tightened"] as? [String: Any], "app bundle: \(appBundle)")
        #expect(try canonicalJSON(appTightened) == canonicalJSON(tightened), "check: \(tightened)\napp: \(appTightened)")
        #expect(appBundle["tight"] as? Bool == checkDocument["tight"] as? Bool)
        // app lints the bundle's dictionary with plist lint's linter.
        #expect(Set((appBundle["lint"] as? [[String: Any]] ?? []).compactMap { $0["rule"] as? String }) == lintRules)
        if keyFails {
            #expect(!checkResult.stdout.contains("\"\(Self.ct)\" : true"), "the tightened dictionary drops the failing key")
        }

        // One answer to "what does this host need in this app's dictionary" (the advisor under the
        // app's dictionary, PlistTargetCheck.suggestion): check's suggestion is app's, app's advice
        // (with its server fixes) advises it, and app's fix for a failing load words it.
        let suggestion = try #require(check["suggestion"] as? [String: Any], "check: \(check)")
        #expect(try canonicalJSON(appCheck["suggestion"] as? [String: Any] ?? [:]) == canonicalJSON(suggestion), "app: \(appCheck)")
        let appItem = try #require((appDocument["checks"] as? [[String: Any]])?.first { $0["host"] as? String == row.host })
        let appAdvice = appItem["advice"] as? [String: Any] ?? [:]
        for key in ["kind", "domain", "exception"] {
            #expect(try canonicalJSON(["v": appAdvice[key] ?? NSNull()]) == canonicalJSON(["v": suggestion[key] ?? NSNull()]),
                    "app's advice \(key): \(appAdvice) vs check's suggestion \(suggestion)")
        }
        if !row.passes {
            let fix = appItem["remedy"] as? String ?? ""
            switch check["reachability"] as? String == "unreachable" ? "unreachable" : suggestion["kind"] as? String {
            case "unreachable": #expect(fix.hasPrefix("unknown: the host could not be reached"), "app's fix \"\(fix)\"")
            case "exception":
                let keys = (suggestion["exception"] as? [String: Any] ?? [:]).keys
                #expect(fix.contains("entry for \(suggestion["domain"] as? String ?? "?")") && keys.allSatisfy(fix.contains),
                        "app's fix \"\(fix)\" vs check's suggestion \(suggestion)")
            case "impossible": #expect(fix.hasPrefix("no dictionary makes it load"), "app's fix \"\(fix)\"")
            default: #expect(fix.hasPrefix("no exception"), "app's fix \"\(fix)\" vs check's suggestion \(suggestion)")
            }
        }

        // The tightened dictionary passes the default lint and (where a dictionary can) the load.
        let tightenedPath = fixture.path("tightened.plist")
        try Data((checkDocument["tightenedPlist"] as? String ?? "").utf8).write(to: URL(fileURLWithPath: tightenedPath))
        let tightenedLint = try await BinaryRunner.run(["plist", "lint", tightenedPath], timeout: 60)
        #expect(tightenedLint.status == 0, "lint of the tightened dictionary: \(tightenedLint.stdout)")
        if row.fixable {
            let again = try await BinaryRunner.run(["plist", "check", tightenedPath, url, "--json"] + connect, timeout: 120, environment: environment)
            let againTarget = (jsonObject(again.stdout)?["targets"] as? [[String: Any]])?.first
            #expect(againTarget?["passes"] as? Bool == true, "the tightened dictionary's load: \(again.stdout)\n\(again.stderr)")
        }
    }

    /// The table covers each kind the issues list, each rule set (by id and by release), and at
    /// least 60 rows.
    @Test func theTableCoversEveryKindAndRuleSet() {
        #expect(Self.rows.count >= 60)
        let asked = Set(Self.rows.map(\.rules))
        #expect(Set(asked.compactMap { RuleSet.resolve($0)?.ruleSet.id }) == Set(RuleSet.all.map(\.id)), "every set")
        #expect(["ios14", "ios16", "ios17.2", "macos13", "macos14", "macos26"].allSatisfy(asked.contains), "asked by release")
        #expect(Self.rows.contains { $0.lint.contains("domain-uppercase") } && Self.rows.contains { $0.lint.contains("domain-trailing-dot") })
        #expect(Self.rows.contains { $0.ats["NSPinnedDomains"]?.dictionaryValue?.keys.contains { $0 != $0.lowercased() } == true })
        #expect(Self.rows.contains { $0.appFinds && $0.host.hasSuffix(".local") } && Self.rows.contains { $0.appFinds && Target.isIPAddress($0.host) })
        #expect(Self.rows.contains { $0.ats["NSExceptionDomains"]?.dictionaryValue?.keys.contains { $0.contains("/") } == true })
        #expect(Self.rows.contains { $0.setsCTKey && $0.root == .user } && Self.rows.contains { $0.setsCTKey && $0.root == .ctRequired })
        #expect(Self.rows.contains { $0.lint.contains("unknown-key") } && Self.rows.contains { $0.lint.contains("wrong-type") })
        for reason in ["localNetworking", "ipAddressBeforeIOS17", "builtInException", "exception", "defaults", "arbitraryLoads"] {
            #expect(Self.rows.contains { $0.reason == reason }, "\(reason)")
        }
        #expect(Self.rows.contains { $0.ats["NSPinnedDomains"] != nil })
    }

    /// "LEAF" in a pin stands for the served leaf's SPKI digest, known once the leaf is issued.
    static func pinning(_ ats: [String: PropertyListValue], leaf: String) -> [String: PropertyListValue] {
        func replace(_ value: PropertyListValue) -> PropertyListValue {
            switch value {
            case .string("LEAF"): .string(leaf)
            case .dictionary(let dict): .dictionary(dict.mapValues(replace))
            case .array(let items): .array(items.map(replace))
            default: value
            }
        }
        return ats.mapValues(replace)
    }
}

enum TrustSupportDates {
    /// The test logs are usable from here on (before the leaves' SCTs).
    static let logsSince = ISO8601DateFormatter().date(from: "2024-01-01T00:00:00Z")!
}

/// A JSON object as sorted-key text, to compare two documents' values.
func canonicalJSON(_ object: [String: Any]) throws -> String {
    String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
}

/// `plist lint --format json`'s findings (an array, or a document with "findings").
func jsonArrayOrFindings(_ text: String) -> [[String: Any]]? {
    let value = try? JSONSerialization.jsonObject(with: Data(text.utf8))
    if let array = value as? [[String: Any]] { return array }
    if let document = value as? [String: Any] { return document["findings"] as? [[String: Any]] }
    return nil
}

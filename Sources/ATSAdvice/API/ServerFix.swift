import ATSPolicy
import TextSupport
import TLSFacts

/// The server-side change that would make one exception key unnecessary, or make a host that no
/// exception helps load at all, with the nginx, Apache and HAProxy directives that make it.
/// Review asks apps to justify weakening keys; fixing the server is the better answer when the
/// server is yours, and the only one when trust or the certificate fails.
public struct ServerFix: Sendable, Hashable, Codable {
    /// The exception keys this change makes unnecessary; empty when no exception helps and the
    /// change is what makes the host load.
    public var keys: [String]
    /// What to change, in one sentence.
    public var change: String
    public var nginx: [String]
    public var apache: [String]
    /// `bind` options or `global` lines for HAProxy 2.x.
    public var haproxy: [String]

    public init(keys: [String], change: String, nginx: [String], apache: [String], haproxy: [String] = []) {
        self.keys = keys
        self.change = change
        self.nginx = nginx
        self.apache = apache
        self.haproxy = haproxy
    }

    /// ECDHE with AES-GCM: forward secret and an ATS suite in every rule set (documented and Apple's code).
    static func modernCiphers(for leaf: PublicKeyFacts?) -> [String] {
        let ecdsa = ["ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384"]
        let rsa = ["ECDHE-RSA-AES128-GCM-SHA256", "ECDHE-RSA-AES256-GCM-SHA384"]
        switch leaf?.algorithm {
        case .rsa?: return rsa
        case .ec?: return ecdsa
        default: return ecdsa + rsa
        }
    }

    /// Enable TLS 1.2 and 1.3 with forward-secret AES-GCM suites: removes a lowered minimum.
    static func modernProtocols(key: String, leaf: PublicKeyFacts?) -> ServerFix {
        let ciphers = modernCiphers(for: leaf).joined(separator: ":")
        return ServerFix(keys: [key], change: "enable TLS 1.2 and TLS 1.3 with \(modernCiphers(for: leaf)[0])",
                         nginx: ["ssl_protocols TLSv1.2 TLSv1.3;", "ssl_ciphers \(ciphers);"],
                         apache: ["SSLProtocol -all +TLSv1.2 +TLSv1.3", "SSLCipherSuite \(ciphers)"],
                         haproxy: haproxyLines(ciphers))
    }

    /// Offer ECDHE key exchange first: removes NSExceptionRequiresForwardSecrecy = NO and, when the
    /// server's suites were the problem, NSExceptionAllowsInsecureHTTPLoads.
    static func forwardSecretSuites(keys: [String], leaf: PublicKeyFacts?, because: String) -> ServerFix {
        let ciphers = modernCiphers(for: leaf).joined(separator: ":")
        return ServerFix(keys: keys, change: "\(because): enable \(modernCiphers(for: leaf)[0]) (ECDHE key exchange with AES-GCM)",
                         nginx: ["ssl_ciphers \(ciphers);", "ssl_prefer_server_ciphers on;"],
                         apache: ["SSLCipherSuite \(ciphers)", "SSLHonorCipherOrder on"],
                         haproxy: haproxyLines(ciphers))
    }

    /// HAProxy's global defaults for every `bind ... ssl` line: TLS 1.2 and up, the given suites.
    static func haproxyLines(_ ciphers: String) -> [String] {
        ["ssl-default-bind-options ssl-min-ver TLSv1.2", "ssl-default-bind-ciphers \(ciphers)"]
    }

    /// Serve HTTPS: removes NSExceptionAllowsInsecureHTTPLoads for a host loaded over http://;
    /// the exception is only the stop-gap until then.
    static func serveHTTPS(key: String, host: String) -> ServerFix {
        ServerFix(keys: [key], change: "the app loads http://\(UntrustedText.escape(host, limit: 255)): serve it over HTTPS (TLS 1.2 or later, "
                    + "a publicly trusted certificate) and load https:// URLs; \(key) is only a stop-gap until then",
                  nginx: ["listen 443 ssl;", "ssl_protocols TLSv1.2 TLSv1.3;", "return 301 https://$host$request_uri;  # in the port 80 server"],
                  apache: ["SSLEngine on (in a <VirtualHost *:443>)", "Redirect permanent / https://<host>/ (in the port 80 virtual host)"])
    }

    /// Reissue the leaf: removes NSExceptionAllowsInsecureHTTPLoads when the leaf's key or hash was the problem.
    static func reissueLeaf(key: String, because: String) -> ServerFix {
        ServerFix(keys: [key], change: "\(because): reissue the certificate with an ECDSA P-256 or RSA 2048-bit key, signed with SHA-256",
                  nginx: newCertificate.nginx, apache: newCertificate.apache, haproxy: newCertificate.haproxy)
    }

    /// Where a new certificate and its chain go. HAProxy reads the leaf, the intermediates and the
    /// key from one PEM file.
    static let newCertificate = (
        nginx: ["ssl_certificate /path/to/fullchain.pem;", "ssl_certificate_key /path/to/key.pem;"],
        apache: ["SSLCertificateFile /path/to/fullchain.pem", "SSLCertificateKeyFile /path/to/key.pem"],
        haproxy: ["bind :443 ssl crt /path/to/fullchain-and-key.pem"])

    /// What Apple's rules ask of a server certificate (docs/certificates.md), said once.
    static let appleCertificateParameters =
        "an ECDSA P-256 or RSA 2048-bit (or larger) key, a SHA-256 (or stronger) signature, at most 398 days of validity, "
        + "the host in its subjectAltName, extendedKeyUsage serverAuth, and embedded SCTs from a publicly trusted CA"

    /// What Apple asks of a certificate whose chain ends at a user-installed root: no SCTs (Apple's
    /// CT policy covers publicly trusted certificates only; CTPolicy: "not required: the chain
    /// ends at a user-installed root") and no 398-day limit (HT211025 exempts user-added roots;
    /// `validity-398` applies to anchor `.system` only, docs/certificates.md).
    static let userRootCertificateParameters =
        "an ECDSA P-256 or RSA 2048-bit (or larger) key, a SHA-256 (or stronger) signature, "
        + "the host in its subjectAltName and extendedKeyUsage serverAuth (CT and the 398-day limit do not apply under a user-installed root)"

    /// The certificate itself breaks a rule no ATS key relaxes: reissue it with what Apple needs.
    /// `userInstalledRoot`: the chain ends at a root the users install (--ca-file/--ca-dir), so
    /// the new certificate needs no SCTs and no public CA.
    public static func reissueCertificate(host: String, problems: [String], userInstalledRoot: Bool = false) -> ServerFix {
        let parameters = userInstalledRoot ? userRootCertificateParameters : appleCertificateParameters
        return ServerFix(keys: [], change: "reissue the certificate for \(host) (today: \(problems.joined(separator: ", "))) with \(parameters)",
                         nginx: newCertificate.nginx, apache: newCertificate.apache, haproxy: newCertificate.haproxy)
    }

    /// The server sends its leaf without the intermediates (or in a wrong order): send the chain.
    public static func serveFullChain(problem: String) -> ServerFix {
        ServerFix(keys: [], change: "serve the full chain, the leaf first and then each intermediate certificate up to the root (today: \(problem)); "
                  + "Apache before 2.4.8 names the intermediates in SSLCertificateChainFile",
                  nginx: ["ssl_certificate /path/to/fullchain.pem;"],
                  apache: ["SSLCertificateFile /path/to/fullchain.pem"],
                  haproxy: ["bind :443 ssl crt /path/to/fullchain-and-key.pem"])
    }

    /// The chain ends at a root Apple's devices do not trust.
    public static func publiclyTrustedCertificate(problem: String) -> ServerFix {
        ServerFix(keys: [], change: "get a certificate from a CA in Apple's trust store (today: \(problem)); a root the app's users install "
                  + "themselves is trusted only on their devices",
                  nginx: newCertificate.nginx, apache: newCertificate.apache, haproxy: newCertificate.haproxy)
    }

    /// No protocol in common: the server speaks only protocols below what the client offers.
    public static func protocols(serverSpeaks: String?, leaf: PublicKeyFacts?) -> ServerFix {
        var fix = modernProtocols(key: "", leaf: leaf)
        fix.keys = []
        if let serverSpeaks { fix.change += " (today the server speaks \(serverSpeaks) at best)" }
        return fix
    }

    /// No suite in common, or none ATS accepts: name what the server speaks today.
    public static func suites(serverSpeaks: [String], leaf: PublicKeyFacts?) -> ServerFix {
        let today = serverSpeaks.isEmpty ? "no suite any Apple client offers" : serverSpeaks.joined(separator: ", ")
        var fix = forwardSecretSuites(keys: [], leaf: leaf, because: "the server speaks \(today)")
        fix.keys = []
        return fix
    }
}

/// How a fix's line changes the server's configuration (issue 25): most TLS directives may
/// appear once per block, so the line replaces the one already there; a few are added beside
/// what is there. Each server's name for the directive is the line's first word.
public enum ServerEditAction: String, Sendable, Hashable, Codable {
    /// Replaces the directive of the same name in the same block (nginx refuses a duplicate
    /// `ssl_protocols` in one server block: "directive is duplicate"; Apache and HAProxy keep
    /// the last, silently).
    case replace
    /// Added beside what is there (another `listen`, a `return`, a `bind` line).
    case add
}

extension ServerFix {
    /// The directives the fixes set that appear once per block (nginx's ngx_http_ssl_module,
    /// Apache's mod_ssl, HAProxy's global section).
    static let oncePerBlock: Set<String> = [
        "ssl_protocols", "ssl_ciphers", "ssl_prefer_server_ciphers", "ssl_certificate", "ssl_certificate_key",
        "SSLProtocol", "SSLCipherSuite", "SSLHonorCipherOrder", "SSLCertificateFile", "SSLCertificateKeyFile",
        "ssl-default-bind-options", "ssl-default-bind-ciphers",
    ]

    /// The directive a line sets: its first word.
    public static func directive(of line: String) -> String {
        String(line.prefix { !$0.isWhitespace && $0 != ";" })
    }

    /// Whether `line` replaces its directive or adds one.
    public static func action(of line: String) -> ServerEditAction {
        oncePerBlock.contains(directive(of: line)) ? .replace : .add
    }

    /// The fixes for one server, merged per directive: a directive an earlier fix already sets
    /// is not repeated by a later one (two blocks never both carry `ssl_ciphers`), so applying
    /// every fix gives each directive once. The lines set by the same function are the same
    /// (one leaf, one cipher list), so the first is kept.
    static func mergedPerDirective(_ fixes: [ServerFix]) -> [ServerFix] {
        var nginx = Set<String>(), apache = Set<String>(), haproxy = Set<String>()
        func keep(_ lines: [String], _ seen: inout Set<String>) -> [String] {
            lines.filter { line in
                guard action(of: line) == .replace else { return true }
                return seen.insert(directive(of: line)).inserted
            }
        }
        return fixes.map { fix in
            var merged = fix
            merged.nginx = keep(fix.nginx, &nginx)
            merged.apache = keep(fix.apache, &apache)
            merged.haproxy = keep(fix.haproxy, &haproxy)
            return merged
        }
    }
}

import TLSFacts

/// The server-side change that would make one exception key unnecessary, with the nginx and
/// Apache directives that make it. Review asks apps to justify weakening keys; fixing the
/// server is the better answer when the server is yours.
public struct ServerFix: Sendable, Hashable, Codable {
    /// The exception keys this change makes unnecessary.
    public var keys: [String]
    /// What to change, in one sentence.
    public var change: String
    public var nginx: [String]
    public var apache: [String]

    public init(keys: [String], change: String, nginx: [String], apache: [String]) {
        self.keys = keys
        self.change = change
        self.nginx = nginx
        self.apache = apache
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
                         apache: ["SSLProtocol -all +TLSv1.2 +TLSv1.3", "SSLCipherSuite \(ciphers)"])
    }

    /// Offer ECDHE key exchange first: removes NSExceptionRequiresForwardSecrecy = NO and, when the
    /// server's suites were the problem, NSExceptionAllowsInsecureHTTPLoads.
    static func forwardSecretSuites(keys: [String], leaf: PublicKeyFacts?, because: String) -> ServerFix {
        let ciphers = modernCiphers(for: leaf).joined(separator: ":")
        return ServerFix(keys: keys, change: "\(because): enable \(modernCiphers(for: leaf)[0]) (ECDHE key exchange with AES-GCM)",
                         nginx: ["ssl_ciphers \(ciphers);", "ssl_prefer_server_ciphers on;"],
                         apache: ["SSLCipherSuite \(ciphers)", "SSLHonorCipherOrder on"])
    }

    /// Serve HTTPS: removes NSExceptionAllowsInsecureHTTPLoads for a host loaded over http://;
    /// the exception is only the stop-gap until then.
    static func serveHTTPS(key: String, host: String) -> ServerFix {
        ServerFix(keys: [key], change: "the app loads http://\(UntrustedText.escape(host, limit: 255)): serve it over HTTPS (TLS 1.2 or later, "
                    + "a publicly trusted certificate) and load https:// URLs; \(key) is only a stop-gap until then",
                  nginx: ["listen 443 ssl; ssl_protocols TLSv1.2 TLSv1.3;", "return 301 https://$host$request_uri; (in the port 80 server)"],
                  apache: ["SSLEngine on (in a <VirtualHost *:443>)", "Redirect permanent / https://<host>/ (in the port 80 virtual host)"])
    }

    /// Reissue the leaf: removes NSExceptionAllowsInsecureHTTPLoads when the leaf's key or hash was the problem.
    static func reissueLeaf(key: String, because: String) -> ServerFix {
        ServerFix(keys: [key], change: "\(because): reissue the certificate with an ECDSA P-256 or RSA 2048-bit key, signed with SHA-256",
                  nginx: ["ssl_certificate /path/to/new-fullchain.pem;", "ssl_certificate_key /path/to/new-key.pem;"],
                  apache: ["SSLCertificateFile /path/to/new-fullchain.pem", "SSLCertificateKeyFile /path/to/new-key.pem"])
    }
}

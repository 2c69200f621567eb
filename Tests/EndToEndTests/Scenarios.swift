import ATSTestServers
import Foundation
import TLSFacts

/// The loopback servers every end-to-end suite runs against: one per configuration the issues
/// name, each made from certificates generated at test time.
enum Scenario: String, CaseIterable, Sendable, CustomStringConvertible {
    case modernRSA2048, ecdsaP256, ecdsaP384, rsa4096
    case tls12Only, tls13Only, tls11Only, tls10Only
    case staticRSAOnly, dheOnly, ecdheRSAAES256SHAOnly, ecdheRSAChaCha20Only
    case rsa1024Leaf, sha1Leaf, expired, wrongHost, selfSigned, unknownRoot
    case redirectSameHost, redirectToHTTP
    // What Apple's ClientHello cannot reach (docs/rules.md, "The offer").
    case x448Only, ffdheOnlyTLS13, ecdsaP521TLS13, ed25519Leaf, rsaPSSLeaf, ecdsaSHA1KeyExchange

    var description: String { rawValue }

    /// Whether the test passes --ca-file with the test root (false: the chain has no known anchor).
    var trustsTestRoot: Bool { self != .unknownRoot && self != .selfSigned }

    /// `cleartextPort`: the port of the http:// server a redirect scenario points to.
    func configuration(pki: TestPKI, cleartextPort: Int = 80) throws -> TLSServerConfiguration {
        // "atsprobe.test" (reached with --connect-to) is a qualified name: ATS applies to it under
        // every rule set, where Apple's code exempts "localhost" as a local name.
        let rsa2048 = CertificateSpec(dnsNames: ["localhost", "atsprobe.test"], key: .rsa(bits: 2048))
        let p256 = CertificateSpec(dnsNames: ["localhost", "atsprobe.test"], key: .ec(curve: .p256))
        func serve(_ spec: CertificateSpec = rsa2048, min: TLSVersion = .tls10, max: TLSVersion = .tls13,
                   ciphers: String? = nil, http: HTTPBehavior = .ok) throws -> TLSServerConfiguration {
            TLSServerConfiguration(identity: try pki.issue(spec), minVersion: min, maxVersion: max, cipherList: ciphers, http: http)
        }
        switch self {
        case .modernRSA2048: return try serve(min: .tls12)
        case .ecdsaP256: return try serve(CertificateSpec(key: .ec(curve: .p256)), min: .tls12)
        case .ecdsaP384: return try serve(CertificateSpec(key: .ec(curve: .p384)), min: .tls12)
        case .rsa4096: return try serve(CertificateSpec(key: .rsa(bits: 4096)), min: .tls12)
        case .tls12Only: return try serve(min: .tls12, max: .tls12, ciphers: "ECDHE-RSA-AES128-GCM-SHA256")
        case .tls13Only: return try serve(min: .tls13, max: .tls13)
        case .tls11Only: return try serve(min: .tls11, max: .tls11)
        case .tls10Only: return try serve(min: .tls10, max: .tls10)
        case .staticRSAOnly: return try serve(min: .tls12, max: .tls12, ciphers: "AES128-GCM-SHA256:AES256-SHA")
        case .dheOnly: return try serve(min: .tls12, max: .tls12, ciphers: "DHE-RSA-AES128-GCM-SHA256")
        case .ecdheRSAAES256SHAOnly: return try serve(min: .tls12, max: .tls12, ciphers: "ECDHE-RSA-AES256-SHA")
        case .ecdheRSAChaCha20Only: return try serve(min: .tls12, max: .tls12, ciphers: "ECDHE-RSA-CHACHA20-POLY1305")
        case .rsa1024Leaf: return try serve(CertificateSpec(key: .rsa(bits: 1024)), min: .tls12)
        case .sha1Leaf: return try serve(CertificateSpec(key: .rsa(bits: 2048), signatureHash: .sha1), min: .tls12)
        case .expired:
            return try serve(CertificateSpec(key: .rsa(bits: 2048), notBefore: Date(timeIntervalSinceNow: -100 * 86_400),
                                             notAfter: Date(timeIntervalSinceNow: -86_400)), min: .tls12)
        case .wrongHost:
            return try serve(CertificateSpec(commonName: "other.test", dnsNames: ["other.test"], ipAddresses: [], key: .rsa(bits: 2048)), min: .tls12)
        case .selfSigned:
            return TLSServerConfiguration(identity: try TestPKI.selfSigned(rsa2048), minVersion: .tls12)
        case .unknownRoot: return try serve(min: .tls12)
        case .x448Only:
            return TLSServerConfiguration(identity: try pki.issue(p256), minVersion: .tls12, cipherList: "ECDHE-ECDSA-AES128-GCM-SHA256",
                                          groups: "X448")
        case .ffdheOnlyTLS13:
            return TLSServerConfiguration(identity: try pki.issue(p256), minVersion: .tls13, groups: "ffdhe2048:ffdhe3072")
        case .ecdsaP521TLS13:
            return try serve(CertificateSpec(dnsNames: ["localhost", "atsprobe.test"], key: .ec(curve: .p521)), min: .tls13)
        case .ed25519Leaf:
            return try serve(CertificateSpec(dnsNames: ["localhost", "atsprobe.test"], key: .ed25519), min: .tls12)
        case .rsaPSSLeaf:
            return try serve(CertificateSpec(dnsNames: ["localhost", "atsprobe.test"], key: .rsaPSS(bits: 2048)), min: .tls12)
        case .ecdsaSHA1KeyExchange:
            return TLSServerConfiguration(identity: try pki.issue(CertificateSpec(dnsNames: ["localhost", "atsprobe.test"], key: .ec(curve: .p256))),
                                          minVersion: .tls12, maxVersion: .tls12, cipherList: "ECDHE-ECDSA-AES128-GCM-SHA256",
                                          signatureAlgorithms: "ECDSA+SHA1")
        case .redirectSameHost: return try serve(min: .tls12, http: .perPath(["/": .redirect(to: "/landing"), "/landing": .ok]))
        case .redirectToHTTP: return try serve(min: .tls12, http: .redirect(to: "http://localhost:\(cleartextPort)/plain"))
        }
    }
}

/// A test PKI and a running server for one scenario; stopped whatever happens.
struct ScenarioServer {
    let pki: TestPKI
    let rootPath: String
    let server: TestTLSServer
    /// The http:// end of `redirectToHTTP`.
    let cleartext: CleartextHTTPServer?

    init(_ scenario: Scenario) throws {
        pki = try TestPKI()
        rootPath = try pki.writeRootPEM()
        let cleartext = scenario == .redirectToHTTP ? try CleartextHTTPServer.start(.perPath(["/plain": .ok])) : nil
        self.cleartext = cleartext
        do {
            server = try TestTLSServer.start(try scenario.configuration(pki: pki, cleartextPort: cleartext?.port ?? 80))
        } catch {
            cleartext?.stop()
            throw error
        }
    }

    func stop() {
        server.stop()
        cleartext?.stop()
    }

    var url: String { "https://localhost:\(server.port)/" }
    /// The same server under a qualified name, which ATS judges under every rule set.
    var qualifiedArguments: [String] {
        ["--connect-to", "atsprobe.test:\(server.port):127.0.0.1:\(server.port)", "https://atsprobe.test:\(server.port)/"]
    }
}

import Foundation
import TestSupport
internal import COpenSSL
internal import OpenSSLSupport

/// A root CA, and optionally an intermediate under it, made at test time.
/// Keeps only PEM text, so it is a plain Sendable value holder; keys are re-read per use.
/// The files it writes (`writeRootPEM`) live in one temporary directory of its own, removed
/// when the PKI goes away, whatever the test's outcome.
package final class TestPKI: Sendable {
    package let root: TestIdentity
    package let intermediate: TestIdentity?
    private let files = OwnedDirectory(prefix: "atsprobe-pki")

    package var rootPEM: String { root.certificatePEM }
    package var intermediatePEM: String? { intermediate?.certificatePEM }

    /// The root is valid from 2000 for 20 years from now, so leaves dated in the past still chain.
    package init(rootName: String = "atsprobe Test Root", rootKey: TestKey = .ec(curve: .p256),
                withIntermediate: Bool = false, rootSignatureHash: TestSignatureHash = .sha256,
                intermediateKey: TestKey = .ec(curve: .p256), intermediateExtendedKeyUsage: [String]? = nil,
                intermediateNotAfter: Date? = nil, rootNotAfter: Date? = nil) throws {
        let authorityValidity = (start: Date(timeIntervalSince1970: 946_684_800),
                                 end: Date(timeIntervalSinceNow: 20 * 365 * 86_400))
        let rootSpec = CertificateSpec(commonName: rootName, dnsNames: [], ipAddresses: [], key: rootKey,
                                       signatureHash: rootSignatureHash, notBefore: authorityValidity.start,
                                       notAfter: rootNotAfter ?? authorityValidity.end, extendedKeyUsage: nil)
        let rootPrivateKey = try rootKey.generate()
        let rootCertificate = try CertificateBuilder(spec: rootSpec, role: .authority,
                                                     subjectKey: rootPrivateKey, signer: nil).build()
        root = try TestIdentity(certificate: rootCertificate, key: rootPrivateKey, chainPEM: [])

        if withIntermediate {
            let spec = CertificateSpec(commonName: "\(rootName) Intermediate", dnsNames: [], ipAddresses: [],
                                       key: intermediateKey, notBefore: authorityValidity.start,
                                       notAfter: intermediateNotAfter ?? authorityValidity.end, extendedKeyUsage: intermediateExtendedKeyUsage)
            let key = try intermediateKey.generate()
            let certificate = try CertificateBuilder(
                spec: spec, role: .authority, subjectKey: key,
                signer: Signer(certificate: rootCertificate, key: rootPrivateKey)).build()
            intermediate = try TestIdentity(certificate: certificate, key: key, chainPEM: [])
        } else {
            intermediate = nil
        }
    }

    /// Writes the root as a PEM file in the PKI's temporary directory and returns its path (for
    /// --ca-file); the file lasts as long as the PKI.
    package func writeRootPEM() throws -> String {
        try files.write("root.pem", Data(rootPEM.utf8))
    }

    /// A leaf signed by the intermediate when there is one (chainPEM = [intermediate]), else by the root.
    package func issue(_ spec: CertificateSpec) throws -> TestIdentity {
        let issuer = intermediate ?? root
        let signer = Signer(certificate: try X509Certificate(pem: issuer.certificatePEM),
                            key: try EVPKey(privateKeyPEM: issuer.privateKeyPEM))
        let key = try spec.key.generate()
        let certificate = try CertificateBuilder(spec: spec, role: .leaf, subjectKey: key, signer: signer).build()
        return try TestIdentity(certificate: certificate, key: key,
                                chainPEM: intermediate.map { [$0.certificatePEM] } ?? [])
    }

    /// A certs-only PKCS#7 (CMS SignedData without signers) holding `certificates` (DER), the
    /// form caIssuers URLs may serve (.p7c, RFC 5280 4.2.2.1).
    package static func certsOnlyPKCS7(_ certificates: [[UInt8]]) throws -> [UInt8] {
        try PKCS7Message.certificatesOnly(certificates.map { der in try X509Certificate(der: der) }).der
    }

    /// A leaf under a ladder of `depth` intermediates from the root (root -> 1 -> ... -> depth ->
    /// leaf), served as leaf + every intermediate: a valid chain of depth + 1 certificates.
    package func issueUnderLadder(depth: Int, _ spec: CertificateSpec) throws -> TestIdentity {
        var signer = Signer(certificate: try X509Certificate(pem: root.certificatePEM), key: try EVPKey(privateKeyPEM: root.privateKeyPEM))
        var ladder: [String] = []
        for step in 1...max(1, depth) {
            let authoritySpec = CertificateSpec(commonName: "atsprobe Test Ladder \(step)", dnsNames: [], ipAddresses: [],
                                                key: .ec(curve: .p256), notBefore: Date(timeIntervalSince1970: 946_684_800),
                                                notAfter: Date(timeIntervalSinceNow: 20 * 365 * 86_400), extendedKeyUsage: nil)
            let key = try authoritySpec.key.generate()
            let certificate = try CertificateBuilder(spec: authoritySpec, role: .authority, subjectKey: key, signer: signer).build()
            ladder.insert(try certificate.pem, at: 0)
            signer = Signer(certificate: certificate, key: key)
        }
        let key = try spec.key.generate()
        let certificate = try CertificateBuilder(spec: spec, role: .leaf, subjectKey: key, signer: signer).build()
        return try TestIdentity(certificate: certificate, key: key, chainPEM: ladder)
    }

    /// A self-signed leaf (CA:FALSE), trusted by nothing.
    package static func selfSigned(_ spec: CertificateSpec) throws -> TestIdentity {
        let key = try spec.key.generate()
        let certificate = try CertificateBuilder(spec: spec, role: .leaf, subjectKey: key, signer: nil).build()
        return try TestIdentity(certificate: certificate, key: key, chainPEM: [])
    }

    /// A DER OCSP response saying "good" for `identity`, signed by the CA that issued it
    /// (the intermediate when there is one, else the root), as RFC 6960 expects of a CA-signed response.
    package func ocspResponse(for identity: TestIdentity, thisUpdate: Date, nextUpdate: Date, revoked: Bool = false) throws -> [UInt8] {
        let issuer = intermediate ?? root
        let issuerCertificate = try X509Certificate(pem: issuer.certificatePEM)
        let issuerKey = try EVPKey(privateKeyPEM: issuer.privateKeyPEM)
        let subject = try X509Certificate(pem: identity.certificatePEM)

        OpenSSLErrors.clear()
        guard let id = OCSPCertificateID(subject: subject, issuer: issuerCertificate) else { throw OpenSSLError(.allocation, "making an OCSP cert ID") }
        let basic = try OCSPBasicResponse()

        try basic.addStatus(for: id, revoked: revoked, thisUpdate: Int(thisUpdate.timeIntervalSince1970.rounded(.down)),
                            nextUpdate: Int(nextUpdate.timeIntervalSince1970.rounded(.down)))
        let digest = issuerKey.isEd25519 ? nil : EVP_sha256()
        try basic.sign(as: issuerCertificate, key: issuerKey, digest: digest)
        return try OCSPResponse(successful: basic).der
    }
}

/// A `TemporaryDirectory` made on first use and removed with its owner (the same rule as every
/// test's files: the name starts with `atsprobe-`, the owner removes it).
final class OwnedDirectory: @unchecked Sendable {
    private let prefix: String
    private let lock = NSLock()
    private var directory: TemporaryDirectory?

    init(prefix: String) { self.prefix = prefix }

    /// Writes `name` in the directory (made now if need be) and returns its path; a file
    /// already written under that name is left as it is (a run may be reading it).
    func write(_ name: String, _ data: Data) throws -> String {
        try lock.withLock {
            let directory = try self.directory ?? TemporaryDirectory(prefix: prefix)
            self.directory = directory
            let file = directory.url.appendingPathComponent(name)
            if !FileManager.default.fileExists(atPath: file.path) { try data.write(to: file) }
            return file.path
        }
    }
}

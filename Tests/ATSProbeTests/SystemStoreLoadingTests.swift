import Foundation
import Testing
@testable import ATSProbe
import ATSTrust
import ATSTestServers
import TestSupport

/// The machine's store is read through its hashed directory when OpenSSL's defaults apply (a root
/// is parsed when a chain asks for its subject), and exactly as X509_STORE_set_default_paths
/// reads it otherwise.
@Suite("System store loading")
struct SystemStoreLoadingTests {
    static func rehash(_ directory: String) async throws {
        let result = try await ChildProcess.run("/usr/bin/env", ["openssl", "rehash", directory], timeout: 20)
        #expect(result.status == 0, "openssl rehash: \(result.stderr)")
    }

    @Test func hashedDirectoryFindsARootOnlyWhenItIsThere() async throws {
        let pki = try TestPKI()
        let files = try TemporaryDirectory(prefix: "atsprobe-hashed")
        defer { files.remove() }
        let directory = files.path
        let leafPath = directory + "/leaf.pem.txt"  // not a .pem: rehash must not link it
        try pki.issue(CertificateSpec()).certificatePEM.write(toFile: leafPath, atomically: true, encoding: .utf8)
        let leaf = try #require(TrustStore.readPEMCertificates(path: leafPath, required: true).first)

        // No hash link yet: not a hashed directory, so OpenSSL's defaults are read (no test root there).
        #expect(!TrustStore.hasHashedCertificates(directory))
        #expect(!TrustStore.systemStoreFindsIssuer(of: leaf, environment: [:], defaultDirectory: directory))

        let rootPath = directory + "/root.pem"
        try pki.root.certificatePEM.write(toFile: rootPath, atomically: true, encoding: .utf8)
        try await Self.rehash(directory)
        #expect(TrustStore.hasHashedCertificates(directory))
        #expect(TrustStore.systemStoreFindsIssuer(of: leaf, environment: [:], defaultDirectory: directory))

        // SSL_CERT_FILE or SSL_CERT_DIR set: read as OpenSSL reads them. SSL_CERT_FILE replaces
        // the bundle only, so the default directory is still read; SSL_CERT_DIR replaces the
        // directory (the default bundle, this machine's, lacks the test root).
        #expect(TrustStore.systemStoreFindsIssuer(of: leaf, environment: ["SSL_CERT_FILE": "/nonexistent"], defaultDirectory: directory))
        #expect(!TrustStore.systemStoreFindsIssuer(of: leaf, environment: ["SSL_CERT_DIR": "/nonexistent"], defaultDirectory: directory))
    }

    /// SSL_CERT_FILE names a bundle: it is read when a chain first asks for a subject, not when
    /// the store is made (a bundle written after the store was made is found), and only
    /// certificate blocks count (TRUSTED CERTIFICATE too; other blocks and junk are skipped).
    @Test func aBundleNamedBySSLCertFileIsReadWhenAChainAsks() throws {
        let pki = try TestPKI(), otherPKI = try TestPKI()
        let files = try TemporaryDirectory(prefix: "atsprobe-bundle")
        defer { files.remove() }
        let directory = files.path
        let leafPath = directory + "/leaf.pem"
        try pki.issue(CertificateSpec()).certificatePEM.write(toFile: leafPath, atomically: true, encoding: .utf8)
        let leaf = try #require(TrustStore.readPEMCertificates(path: leafPath, required: true).first)
        let bundle = directory + "/bundle.pem"
        let environment = ["SSL_CERT_FILE": bundle]

        let store = try #require(TrustStore.StandaloneStore.system(environment: environment, defaultDirectory: directory))
        // Written after the store was made: read on demand.
        let trusted = pki.root.certificatePEM.replacingOccurrences(of: "CERTIFICATE", with: "TRUSTED CERTIFICATE")
        try ("junk before\n" + otherPKI.root.certificatePEM + "-----BEGIN X509 CRL-----\nAAAA\n-----END X509 CRL-----\n" + trusted)
            .write(toFile: bundle, atomically: true, encoding: .utf8)
        let rootPath = directory + "/root.pem.txt"
        try pki.root.certificatePEM.write(toFile: rootPath, atomically: true, encoding: .utf8)
        let root = try #require(TrustStore.readPEMCertificates(path: rootPath, required: true).first)
        #expect(store.issuerFingerprint(of: leaf) == CertificateReader.fingerprint(of: root))
        #expect(TrustStore.systemStoreFindsIssuer(of: leaf, environment: environment, defaultDirectory: directory))

        // Without the root in the bundle, nothing is found.
        try otherPKI.root.certificatePEM.write(toFile: bundle, atomically: true, encoding: .utf8)
        #expect(!TrustStore.systemStoreFindsIssuer(of: leaf, environment: environment, defaultDirectory: directory))
        try ("x\n" + otherPKI.root.certificatePEM + trusted).write(toFile: bundle, atomically: true, encoding: .utf8)
        #expect(PEMBundleLookup.read(path: bundle).count == 2)
        // A BEGIN line that does not start its line is not a block, as OpenSSL reads PEM.
        try ("x" + otherPKI.root.certificatePEM + trusted).write(toFile: bundle, atomically: true, encoding: .utf8)
        #expect(PEMBundleLookup.read(path: bundle).count == 1)
    }
}

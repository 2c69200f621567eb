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
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("atsprobe-hashed-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
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

        // SSL_CERT_FILE (or SSL_CERT_DIR) set: OpenSSL's own reading of the environment decides,
        // and the hashed default directory is not used (this process's real store lacks the root).
        #expect(!TrustStore.systemStoreFindsIssuer(of: leaf, environment: ["SSL_CERT_FILE": "/nonexistent"], defaultDirectory: directory))
        #expect(!TrustStore.systemStoreFindsIssuer(of: leaf, environment: ["SSL_CERT_DIR": "/nonexistent"], defaultDirectory: directory))
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import COpenSSL
internal import CATSProbeShims
import TLSFacts

/// The anchors: a system store (Apple's, built in, by default; or the machine's OpenSSL store)
/// and the user's (--ca-file, --ca-dir). Owns X509_STOREs, read-only after init and shared by
/// every verification.
final class TrustStore: @unchecked Sendable {
    let store: OpaquePointer
    /// The other system store alone (the machine's when Apple's is chosen, and the other way
    /// round), to say when the two disagree about a chain; nil without system anchors.
    let otherStore: OpaquePointer?
    /// How outputs name the chosen and the other system store, with their versions.
    let storeName: String?
    let otherStoreName: String?
    /// SHA-256 fingerprints of the user's anchors, to tell which store ended a chain.
    let userAnchorFingerprints: Set<String>
    static let anchorFileLimit = 4096
    static let anchorLimit = 10_000

    init(options: ProbeOptions) throws(ProbeSetupError) {
        OpenSSLErrors.clear()
        guard let store = X509_STORE_new() else { throw ProbeSetupError(path: nil, reason: "cannot create an X509 store") }
        self.store = store
        var fingerprints = Set<String>()
        if options.useSystemTrustStore {
            let other = X509_STORE_new()
            switch options.trustStore {
            case .apple:
                TrustStore.addAppleRoots(to: store)
                if let other { _ = X509_STORE_set_default_paths(other) }
                storeName = AppleRootStore.description
                otherStoreName = SystemStoreName.description
            case .system:
                _ = X509_STORE_set_default_paths(store)
                if let other { TrustStore.addAppleRoots(to: other) }
                storeName = SystemStoreName.description
                otherStoreName = AppleRootStore.description
            }
            otherStore = other
        } else {
            otherStore = nil
            storeName = nil
            otherStoreName = nil
        }
        OpenSSLErrors.clear()
        // Test seam (ProbeOptions.additionalSystemAnchorsFile): added to the store but not to the
        // user's fingerprints, so chains ending there count as system (public) roots.
        if let file = options.additionalSystemAnchorsFile {
            let certificates = try TrustStore.readPEMCertificates(path: file, required: true)
            guard !certificates.isEmpty else { throw ProbeSetupError(path: file, reason: "no PEM certificate in file") }
            for cert in certificates {
                _ = X509_STORE_add_cert(store, cert)
                X509_free(cert)
            }
            OpenSSLErrors.clear()
        }

        func add(file path: String, required: Bool) throws(ProbeSetupError) {
            let certificates = try TrustStore.readPEMCertificates(path: path, required: required)
            for cert in certificates {
                fingerprints.insert(CertificateReader.fingerprint(of: cert))
                _ = X509_STORE_add_cert(store, cert)  // takes its own reference; duplicates are harmless
                X509_free(cert)
            }
            OpenSSLErrors.clear()
        }
        if let file = options.caFile {
            try add(file: file, required: true)
            guard !fingerprints.isEmpty else { throw ProbeSetupError(path: file, reason: "no PEM certificate in file") }
        }
        if let directory = options.caDirectory {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
                throw ProbeSetupError(path: directory, reason: "not a readable directory")
            }
            for name in names.sorted().prefix(TrustStore.anchorFileLimit) where !name.hasPrefix(".") {
                try add(file: directory.hasSuffix("/") ? directory + name : directory + "/" + name, required: false)
            }
        }
        userAnchorFingerprints = fingerprints
    }

    /// The certificate that issued `leaf`: a served one when it did (borrowed), else one from
    /// this store (owned: the caller frees it). Nil when neither has it.
    func issuer(of leaf: OpaquePointer, served: [OpaquePointer]) -> (certificate: OpaquePointer, owned: Bool)? {
        defer { OpenSSLErrors.clear() }
        if let next = served.dropFirst().first(where: { X509_check_issued($0, leaf) == X509_V_OK }) { return (next, false) }
        guard let context = X509_STORE_CTX_new() else { return nil }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, leaf, nil) == 1 else { return nil }
        var found: OpaquePointer?
        guard X509_STORE_CTX_get1_issuer(&found, context, leaf) == 1, let found else { return nil }
        return (found, true)
    }

    deinit {
        X509_STORE_free(store)
        if let otherStore { X509_STORE_free(otherStore) }
    }

    private static func addAppleRoots(to store: OpaquePointer) {
        for cert in AppleRootStore.certificates() {
            _ = X509_STORE_add_cert(store, cert)
            X509_free(cert)
        }
        OpenSSLErrors.clear()
    }

    /// Every certificate in a PEM file (owned by the caller). Unreadable files throw when required.
    static func readPEMCertificates(path: String, required: Bool) throws(ProbeSetupError) -> [OpaquePointer] {
        guard let bio = BIO_new_file(path, "r") else {
            OpenSSLErrors.clear()
            if !required { return [] }
            throw ProbeSetupError(path: path, reason: "cannot read file (\(String(cString: strerror(errno))))")
        }
        defer { BIO_free(bio) }
        var certificates: [OpaquePointer] = []
        while certificates.count < anchorLimit, let cert = PEM_read_bio_X509(bio, nil, nil, nil) {
            certificates.append(cert)
        }
        OpenSSLErrors.clear()  // the last read ends with "no start line"
        return certificates
    }
}

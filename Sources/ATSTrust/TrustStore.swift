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
package import COpenSSL
package import CATSProbeShims
package import OpenSSLSupport
import TextSupport
import TLSFacts

/// The anchors: a system store (Apple's, built in, by default; or the machine's OpenSSL store)
/// and the user's (--ca-file, --ca-dir). Owns X509_STOREs, read-only after init and shared by
/// every verification.
package final class TrustStore: @unchecked Sendable {
    package let store: X509Store
    /// The other system store alone (the machine's when Apple's is chosen, and the other way
    /// round), to say when the two disagree about a chain; nil without system anchors.
    package let otherStore: X509Store?
    /// How outputs name the chosen and the other system store, with their versions.
    package let storeName: String?
    package let otherStoreName: String?
    /// SHA-256 fingerprints of the user's anchors, to tell which store ended a chain.
    package let userAnchorFingerprints: Set<String>
    /// SHA-256 fingerprints (as CertificateReader gives them) of the anchors an app set itself
    /// (AnchorConfiguration.appAnchorFile); when any, the store holds these alone.
    package let appAnchorFingerprints: Set<String>
    /// SHA-256 fingerprints (normalised: upper-case hex, no colons) of the system anchors known
    /// by fingerprint: Apple's roots when Apple's store is chosen, and the test seam's file.
    package let systemAnchorFingerprints: Set<String>
    /// The anchors by content (`run.anchorsDigest`, docs/json-schema.md): "sha256:" and the hex
    /// SHA-256 of the system store's name with its version, then each user-installed root's and
    /// each app anchor's fingerprint, sorted. Two runs with the same digest ended chains at the
    /// same roots, wherever their --ca-file was; a baseline and a run whose digests differ are
    /// not comparable (BaselineComparison, issue 42).
    package let anchorsDigest: String
    package static let anchorFileLimit = 4096
    package static let anchorLimit = 10_000
    /// At most this many certificates in one --ca-file, --app-anchor or --ca-dir file: a bundle
    /// of every public root holds about 150, so more is a wrong argument, refused at once (exit
    /// 64) rather than read for seconds and judged with (issue 31).
    package static let userAnchorLimit = 1_000
    /// A PEM bundle of every public root is about 250 KB; this bounds a wrong argument.
    package static let anchorBytesLimit = 64 * 1024 * 1024

    package init(options: AnchorConfiguration) throws(TrustSetupError) {
        OpenSSLErrors.clear()
        // Owned by X509Store: freed on every error path below as well as with this store.
        guard let owner = try? X509Store() else { throw TrustSetupError(.storeUnavailable, path: nil, reason: "cannot create an X509 store") }
        self.store = owner
        let store = owner
        var fingerprints = Set<String>()
        var systemFingerprints = Set<String>()
        var appFingerprints = Set<String>()
        if options.useSystemTrustStore, options.trustStore == .apple {
            systemFingerprints = AppleRootStore.fingerprints
        }
        // Anchors an app sets itself replace every other anchor (anchorsOnly): no system or
        // user anchor joins the store, and no other store is compared.
        if let file = options.appAnchorFile {
            let certificates = try TrustStore.readPEMCertificates(path: file, required: true)
            guard !certificates.isEmpty else { throw TrustSetupError(.noCertificate, path: file, reason: "no PEM certificate in file") }
            for cert in certificates {
                appFingerprints.insert(CertificateReader.fingerprint(of: cert))
                store.add(cert)
            }
            OpenSSLErrors.clear()
            otherStore = nil
            storeName = "anchors set by the app (\(certificates.count) certificate\(certificates.count == 1 ? "" : "s"))"
            otherStoreName = nil
        } else if options.useSystemTrustStore {
            let other = try? X509Store()
            switch options.trustStore {
            case .apple:
                TrustStore.addAppleRoots(to: store)
                if let other { TrustStore.addSystemStore(to: other) }
                storeName = AppleRootStore.description
                otherStoreName = SystemStoreName.description
            case .system:
                TrustStore.addSystemStore(to: store)
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
            guard !certificates.isEmpty else { throw TrustSetupError(.noCertificate, path: file, reason: "no PEM certificate in file") }
            for cert in certificates {
                // With app anchors the system store ends no chain; it still tells a system root.
                if options.appAnchorFile == nil { store.add(cert) }
                systemFingerprints.insert(TrustStore.normalized(CertificateReader.fingerprint(of: cert)))
            }
            OpenSSLErrors.clear()
        }

        appAnchorFingerprints = appFingerprints
        func add(file path: String, required: Bool) throws(TrustSetupError) {
            let certificates = try TrustStore.readPEMCertificates(path: path, required: required)
            for cert in certificates {
                fingerprints.insert(CertificateReader.fingerprint(of: cert))
                store.add(cert)  // takes its own reference; duplicates are harmless
            }
            OpenSSLErrors.clear()
        }
        if options.appAnchorFile != nil, options.caFile != nil || options.caDirectory != nil {
            throw TrustSetupError(.appAnchorsWithUserRoots, path: nil, reason: "anchors an app sets replace the user's: give one or the other, not both")
        }
        if let file = options.caFile {
            try add(file: file, required: true)
            guard !fingerprints.isEmpty else { throw TrustSetupError(.noCertificate, path: file, reason: "no PEM certificate in file") }
        }
        if let directory = options.caDirectory {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
                throw TrustSetupError(.unreadableDirectory, path: directory, reason: "not a readable directory")
            }
            // Only regular files: a FIFO would block the read forever, a device may never end.
            for name in names.sorted().prefix(TrustStore.anchorFileLimit) where !name.hasPrefix(".") {
                let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
                guard BoundedFile.isRegularFile(path) else { continue }
                try add(file: path, required: false)
            }
        }
        userAnchorFingerprints = fingerprints
        systemAnchorFingerprints = systemFingerprints
        anchorsDigest = TrustStore.digest(system: storeName, user: fingerprints, app: appFingerprints, added: systemFingerprints,
                                          addedFile: options.additionalSystemAnchorsFile != nil)
    }

    static func digest(system: String?, user: Set<String>, app: Set<String>, added: Set<String>, addedFile: Bool) -> String {
        var text = "system \(system ?? "none")\n"
        for fingerprint in user.map(normalized).sorted() { text += "user \(fingerprint)\n" }
        for fingerprint in app.map(normalized).sorted() { text += "app \(fingerprint)\n" }
        if addedFile { for fingerprint in added.sorted() { text += "system+ \(fingerprint)\n" } }
        var digest = [UInt8](repeating: 0, count: 32)
        let bytes = Array(text.utf8)
        guard EVP_Digest(bytes, bytes.count, &digest, nil, EVP_sha256(), nil) == 1 else { return "sha256:unavailable" }
        return "sha256:" + digest.hexEncoded()
    }

    /// "AB:CD:..." or "abcd..." as "ABCD...". Byte by byte: fingerprints are ASCII hex, and
    /// `filter` then `uppercased()` (Unicode's rules) cost 34,000 instructions each, 5.4 M of
    /// every run's start for the 156 roots (callgrind, one-host run).
    package static func normalized(_ fingerprint: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(fingerprint.utf8.count)
        for byte in fingerprint.utf8 where byte != UInt8(ascii: ":") {
            bytes.append((UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) ? byte - 32 : byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Which anchor source ended a chain at `fingerprint`. A root in the system store is a
    /// system anchor even when the user also installed it (--ca-file): Apple asks the system
    /// anchor source first (SecPolicyServer.c SecPolicyCheckValidityPeriodMaximums and
    /// SecPVCCheckRequireCTConstraints: SecCertificateSourceContains(kSecSystemAnchorSource, root)),
    /// so user trust of a root that requires CT and 398 days lifts neither.
    /// An anchor the app set is `.app` unless the system store holds it too (the same
    /// SecCertificateSourceContains(kSecSystemAnchorSource, root) question, asked whatever the
    /// anchor source that ended the chain).
    package func anchorSource(fingerprint: String) -> AnchorSource {
        let key = TrustStore.normalized(fingerprint)
        if systemAnchorFingerprints.contains(key) { return .system }
        if appAnchorFingerprints.contains(fingerprint) { return .app }
        return userAnchorFingerprints.contains(fingerprint) ? .user : .system
    }

    /// The certificate that issued `leaf`: a served one when it did, else one from this store.
    /// Nil when neither has it.
    package func issuer(of leaf: X509Certificate, served: [X509Certificate]) -> X509Certificate? {
        defer { OpenSSLErrors.clear() }
        if let next = served.dropFirst().first(where: { $0.isIssuer(of: leaf) }) { return next }
        return store.issuer(of: leaf)
    }

    /// The machine's OpenSSL store, read as X509_STORE_set_default_paths reads it (the bundle
    /// file, SSL_CERT_FILE or OpenSSL's default, then the hashed directory, SSL_CERT_DIR or the
    /// default), but on demand: OpenSSL reads a root from the directory by its subject hash when a
    /// chain asks for it, and the bundle is read by PEMBundleLookup, which decodes only the
    /// certificates with the subject asked for. Decoding the whole bundle first, as
    /// set_default_paths does, cost 184 million instructions, 40% of a one-host run (callgrind,
    /// docs/performance.md), and the store is consulted only to compare it with Apple's.
    /// With neither variable set and the default directory hashed (Debian's /etc/ssl/certs, kept
    /// by update-ca-certificates beside the bundle it holds the same roots as), only the directory
    /// is added. (set_default_paths's third lookup, an OSSL_STORE over the same directory, finds
    /// what the hashed directory finds, and is left out.)
    package static func addSystemStore(to store: X509Store,
                               environment: [String: String] = ProcessInfo.processInfo.environment,
                               defaultDirectory: String = String(cString: X509_get_default_cert_dir())) {
        func setting(_ variable: UnsafePointer<CChar>) -> String? {
            environment[String(cString: variable)].flatMap { $0.isEmpty ? nil : $0 }
        }
        let file = setting(X509_get_default_cert_file_env())
        let directory = setting(X509_get_default_cert_dir_env())
        if file == nil && directory == nil && hasHashedCertificates(defaultDirectory) {
            store.loadPath(defaultDirectory)
        } else {
            PEMBundleLookup.add(path: file ?? String(cString: X509_get_default_cert_file()), to: store)
            store.loadPath(directory ?? defaultDirectory)
        }
        OpenSSLErrors.clear()
    }

    /// Whether the system store, as addSystemStore builds it, finds an issuer of `cert` by its
    /// subject (what chain building asks of it).
    package static func systemStoreFindsIssuer(of cert: X509Certificate, environment: [String: String], defaultDirectory: String) -> Bool {
        StandaloneStore.system(environment: environment, defaultDirectory: defaultDirectory)?.issuerFingerprint(of: cert) != nil
    }

    /// One store alone, filled as the trust store fills its parts (tests: what it finds, and
    /// when it reads its files).
    package final class StandaloneStore {
        private let store: X509Store

        init?(filling fill: (X509Store) -> Void) {
            guard let store = try? X509Store() else { return nil }
            self.store = store
            fill(store)
        }

        /// The machine's store, as addSystemStore builds it.
        package static func system(environment: [String: String], defaultDirectory: String) -> StandaloneStore? {
            StandaloneStore { addSystemStore(to: $0, environment: environment, defaultDirectory: defaultDirectory) }
        }

        /// The SHA-256 fingerprint of the certificate the store finds as `cert`'s issuer (by
        /// subject and signature, as chain building asks); nil when none.
        package func issuerFingerprint(of cert: X509Certificate) -> String? {
            store.issuer(of: cert).map { CertificateReader.fingerprint(of: $0) }
        }
    }

    /// True when `directory` holds at least one OpenSSL hash link (`1a2b3c4d.0`).
    package static func hasHashedCertificates(_ directory: String) -> Bool {
        guard let handle = opendir(directory) else { return false }
        defer { closedir(handle) }
        var looked = 0
        while let entry = readdir(handle), looked < 100_000 {
            looked += 1
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            let parts = name.split(separator: ".")
            if parts.count == 2, parts[0].count == 8, parts[0].allSatisfy(\.isHexDigit), parts[1].allSatisfy(\.isNumber) {
                return true
            }
        }
        return false
    }

    /// Apple's roots, decoded when a chain asks for their subject (AppleRootLookup); all of
    /// them at once only if OpenSSL refuses the lookup.
    private static func addAppleRoots(to store: X509Store) {
        if !AppleRootLookup.add(to: store) {
            for cert in AppleRootStore.certificates() { store.add(cert) }
        }
        OpenSSLErrors.clear()
    }

    /// The certificate the store finds as `cert`'s issuer (by subject and signature), as its
    /// SHA-256 fingerprint; nil when none (tests: Apple's roots are found through the lookup).
    package static func issuerFingerprint(of cert: X509Certificate, in choice: TrustStoreChoice) -> String? {
        let store = StandaloneStore { store in
            switch choice {
            case .apple: addAppleRoots(to: store)
            case .system: addSystemStore(to: store)
            }
        }
        return store?.issuerFingerprint(of: cert)
    }

    /// Every certificate in a PEM file. Unreadable files throw when required.
    /// Read through BoundedFile, not BIO_new_file: fopen on a FIFO blocks with no deadline, and
    /// a device (`--ca-file /dev/zero`) never ends.
    package static func readPEMCertificates(path: String, required: Bool) throws(TrustSetupError) -> [X509Certificate] {
        let bytes: [UInt8]
        do {
            bytes = try BoundedFile.read(path, limit: anchorBytesLimit, allowPipes: required)
        } catch {
            // Out of descriptors or memory: never skipped (an anchor silently left out would
            // change the verdict), and never the file's fault.
            let local = BoundedFile.isResourceExhaustion(error)
            if !required && !local { return [] }
            throw TrustSetupError(.unreadableFile, path: path, reason: "cannot read file (\(error.reason))", isLocalResource: local)
        }
        guard let bio = try? MemoryBIO(copying: bytes) else {
            throw TrustSetupError(.unreadableFile, path: path, reason: "cannot read file (out of memory)", isLocalResource: true)
        }
        var certificates: [X509Certificate] = []
        while let cert = X509Certificate.readPEM(from: bio) {
            guard certificates.count < userAnchorLimit else {
                OpenSSLErrors.clear()
                throw TrustSetupError(.tooManyCertificates, path: path, reason: "more than \(userAnchorLimit) certificates: not a file of anchors (a bundle of every public root holds about 150)")
            }
            certificates.append(cert)
        }
        OpenSSLErrors.clear()  // the last read ends with "no start line"
        return certificates
    }
}

import TextSupport
import TLSFacts

/// Which anchors a trust evaluation uses: a system store (Apple's or the machine's), and the
/// user's (--ca-file, --ca-dir), which Apple treats as user-installed roots. Equal
/// configurations build equal stores, so the value is part of an evaluation's cache key.
public struct AnchorConfiguration: Sendable, Hashable {
    /// PEM bundle of extra anchors, treated as user-installed roots.
    public var caFile: String?
    /// A directory of PEM files (an OpenSSL hashed directory is one), treated as user-installed roots.
    public var caDirectory: String?
    /// Trust a system store's roots as well (which one: `trustStore`).
    public var useSystemTrustStore: Bool
    /// The system store: Apple's, built in (the default), or the machine's OpenSSL store.
    public var trustStore: TrustStoreChoice
    /// TEST SEAM (ProbeOptions.additionalSystemAnchorsFile), not public: certificates that join
    /// the system store.
    package var additionalSystemAnchorsFile: String?
    /// PEM bundle of the anchors an app sets itself (SecTrustSetAnchorCertificates, `cert
    /// --app-anchor`). When set, only these end a chain: Apple's SecTrustSetAnchorCertificates
    /// sets anchorsOnly, and SecPathBuilderInit (SecTrustServer.c) then leaves the Apple, user
    /// and system anchor sources out of the anchor sources. The system store is still asked
    /// whether the root is one of its own (SecCertificateSourceContains(kSecSystemAnchorSource,
    /// root) in SecPolicyServer.c), so an app that sets a system root keeps the system rules.
    public var appAnchorFile: String?

    public init(caFile: String? = nil, caDirectory: String? = nil, useSystemTrustStore: Bool = true,
                trustStore: TrustStoreChoice = .apple, appAnchorFile: String? = nil) {
        self.init(caFile: caFile, caDirectory: caDirectory, useSystemTrustStore: useSystemTrustStore, trustStore: trustStore,
                  additionalSystemAnchorsFile: nil, appAnchorFile: appAnchorFile)
    }

    /// The same with the test seam: `additionalSystemAnchorsFile` given (nil or a file) every time.
    package init(caFile: String? = nil, caDirectory: String? = nil, useSystemTrustStore: Bool = true,
                 trustStore: TrustStoreChoice = .apple, additionalSystemAnchorsFile: String?, appAnchorFile: String? = nil) {
        self.caFile = caFile
        self.caDirectory = caDirectory
        self.useSystemTrustStore = useSystemTrustStore
        self.trustStore = trustStore
        self.additionalSystemAnchorsFile = additionalSystemAnchorsFile
        self.appAnchorFile = appAnchorFile
    }
}

/// Which root store stands for "the system's".
public enum TrustStoreChoice: String, Sendable, CaseIterable {
    /// Apple's root store as shipped with iOS/macOS 26 (AppleRootStore), built into the binary.
    case apple
    /// The machine's OpenSSL store (OpenSSL's default paths; SSL_CERT_FILE/SSL_CERT_DIR replace them).
    case system
}

/// The anchors could not be read. The description is one line naming the file concerned.
public struct TrustSetupError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What went wrong, for code: callers compare this, never `reason`'s text.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// OpenSSL gave no certificate store (out of memory).
        case storeUnavailable
        /// A file of anchors could not be read (`isLocalResource` says whether the machine is at fault).
        case unreadableFile
        /// A file of anchors holds no PEM certificate.
        case noCertificate
        /// A file holds more certificates than any file of anchors (`TrustStore.userAnchorLimit`).
        case tooManyCertificates
        /// The directory of anchors cannot be listed.
        case unreadableDirectory
        /// Anchors an app sets and user-installed roots were both given.
        case appAnchorsWithUserRoots
        /// The DNS servers given cannot be used (`reason` is the resolver's).
        case dnsServersUnusable
        /// The probe engine could not be set up (`reason` is the error's own line).
        case engineUnavailable
    }

    public var code: Code
    public var path: String?
    /// For people: what is wrong, after the file's name (for `dnsServersUnusable`, the resolver's reason).
    public var reason: String
    /// The file could not be read because this machine ran out of descriptors or memory: not
    /// the file's fault (the command line exits 70, not 64).
    public var isLocalResource: Bool

    public init(_ code: Code, path: String?, reason: String, isLocalResource: Bool = false) {
        self.code = code
        self.path = path
        self.reason = reason
        self.isLocalResource = isLocalResource
    }

    public var description: String {
        if code == .dnsServersUnusable { return "the DNS servers cannot be used: \(reason)" }
        guard let path else { return reason }
        return "\(UntrustedText.escape(path, limit: 300)): \(reason)"
    }
}

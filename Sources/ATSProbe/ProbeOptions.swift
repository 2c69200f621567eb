#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

/// How a `Prober` judges trust and how hard it may push the network.
public struct ProbeOptions: Sendable {
    /// PEM bundle of extra anchors, treated as user-installed roots.
    public var caFile: String?
    /// A directory of PEM files (an OpenSSL hashed directory is one), treated as user-installed roots.
    public var caDirectory: String?
    /// Trust a system store's roots as well (which one: `trustStore`).
    public var useSystemTrustStore: Bool
    /// The system store: Apple's, built in (the default), or the machine's OpenSSL store.
    public var trustStore: TrustStoreChoice
    /// Fetch missing intermediates from caIssuers URLs as Apple's trustd does (off: watchOS).
    public var fetchesMissingIssuers: Bool
    /// The time trust is judged at; nil means the moment the `Prober` is made (`Prober.evaluationDate`).
    public var evaluationDate: Date?
    /// At most this many handshakes (and cleartext GETs) in flight at once across everything a
    /// `Prober` does (every test of every audit target); more wait, suspended, for a slot. Each
    /// holds one descriptor.
    public var maxHandshakesInFlight: Int = 4096
    /// TEST SEAM, not exposed by the CLI: a PEM bundle whose certificates join the system store,
    /// so chains ending there are judged as public roots (AnchorSource.system: the 398-day and CT
    /// rules apply). Loopback test roots are in no real system store; this stands in for one, as
    /// SSL_CERT_FILE does for the binary. Never use it to make a chain look trusted.
    public var additionalSystemAnchorsFile: String?
    /// CT log keys by log ID (base64): DER SubjectPublicKeyInfo. Each SCT's signature is checked
    /// against its log's key (`SignedCertificateTimestamp.signature`); an SCT from a log not
    /// here is `.unknownLog`. The CLI passes the keys of the log list it judges against.
    public var ctLogKeys: [String: [UInt8]]

    public init(caFile: String? = nil, caDirectory: String? = nil, useSystemTrustStore: Bool = true,
                evaluationDate: Date? = nil,
                additionalSystemAnchorsFile: String? = nil, ctLogKeys: [String: [UInt8]] = [:],
                trustStore: TrustStoreChoice = .apple, fetchesMissingIssuers: Bool = true) {
        self.trustStore = trustStore
        self.fetchesMissingIssuers = fetchesMissingIssuers
        self.ctLogKeys = ctLogKeys
        self.caFile = caFile
        self.caDirectory = caDirectory
        self.useSystemTrustStore = useSystemTrustStore
        self.evaluationDate = evaluationDate
        self.additionalSystemAnchorsFile = additionalSystemAnchorsFile
    }
}

/// Which root store stands for "the system's".
public enum TrustStoreChoice: String, Sendable, CaseIterable {
    /// Apple's root store as shipped with iOS/macOS 26 (AppleRootStore), built into the binary.
    case apple
    /// The machine's OpenSSL store (OpenSSL's default paths; SSL_CERT_FILE/SSL_CERT_DIR replace them).
    case system
}

/// A `Prober` could not be set up. The description is one line naming the file concerned.
public struct ProbeSetupError: Error, Equatable, Sendable, CustomStringConvertible {
    public var path: String?
    public var reason: String

    public init(path: String?, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String {
        guard let path else { return reason }
        return "\(UntrustedText.escape(path, limit: 300)): \(reason)"
    }
}

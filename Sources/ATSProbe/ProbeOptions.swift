import Foundation
import TLSFacts

/// How a `Prober` judges trust and how hard it may push the network.
public struct ProbeOptions: Sendable {
    /// PEM bundle of extra anchors, treated as user-installed roots.
    public var caFile: String?
    /// A directory of PEM files (an OpenSSL hashed directory is one), treated as user-installed roots.
    public var caDirectory: String?
    /// Trust the system's roots (OpenSSL's default paths) as well.
    public var useSystemTrustStore: Bool
    /// The time trust is judged at; nil means now.
    public var evaluationDate: Date?
    /// At most this many handshakes in flight in `probeAll`.
    public var maxConcurrentHandshakes: Int

    public init(caFile: String? = nil, caDirectory: String? = nil, useSystemTrustStore: Bool = true,
                evaluationDate: Date? = nil, maxConcurrentHandshakes: Int = 16) {
        self.caFile = caFile
        self.caDirectory = caDirectory
        self.useSystemTrustStore = useSystemTrustStore
        self.evaluationDate = evaluationDate
        self.maxConcurrentHandshakes = maxConcurrentHandshakes
    }
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

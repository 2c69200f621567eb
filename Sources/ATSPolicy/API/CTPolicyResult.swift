#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

/// How one SCT was counted.
public struct SCTAssessment: Hashable, Sendable, Codable {
    public var source: SignedCertificateTimestamp.Source
    public var logID: String
    public var timestamp: Date
    /// The log as the log list knows it; nil when the ID is in no list atsprobe has.
    public var log: CTLog?
    /// From a currently approved log (usable/qualified, or read-only and issued before it froze).
    public var fromCurrentlyApprovedLog: Bool
    /// From a once- or currently approved log (adds retired logs, for the embedded count).
    public var fromOnceOrCurrentlyApprovedLog: Bool
    /// Why it does not count, when it does not ("unknown log", "log rejected", "timestamp in the future").
    public var note: String?
}

/// Apple's Certificate Transparency verdict for one chain, with the counts behind it.
public struct CTPolicyResult: Hashable, Sendable, Codable {
    public enum Verdict: String, Hashable, Sendable, Codable { case notRequired, compliant, nonCompliant }
    /// Which of Apple's two ways was met.
    public enum Path: String, Hashable, Sendable, Codable {
        /// Embedded SCTs, the number set by the certificate's lifetime.
        case embedded
        /// Two SCTs from current logs, one of them from the TLS extension or a stapled OCSP response.
        case delivered
    }

    public var verdict: Verdict
    /// One line: why CT applies or not, and what was missing.
    public var reason: String
    public var satisfiedBy: Path?

    /// SCTs seen, by source (all of them, counted or not).
    public var embeddedSCTs: Int
    public var tlsExtensionSCTs: Int
    public var ocspStapleSCTs: Int
    public var assessments: [SCTAssessment]

    /// The leaf's lifetime in Apple's days (CertificateLifetime.days).
    public var lifetimeDays: Int?
    /// Embedded SCTs needed from distinct once- or currently approved logs, for this lifetime.
    public var embeddedRequired: Int?
    /// At most this many SCTs per log operator count towards `embeddedRequired` (nil = no cap).
    public var embeddedMaximumPerOperator: Int?
    /// Distinct qualifying embedded logs counted, after the per-operator cap.
    public var embeddedCounted: Int
    /// Distinct currently approved logs across all sources.
    public var currentLogsCounted: Int
    /// Operators of the logs that counted, sorted.
    public var operators: [String]
    /// Log IDs found in no known list, sorted.
    public var unknownLogIDs: [String]

    public var isCompliant: Bool { verdict != .nonCompliant }

    public var totalSCTs: Int { embeddedSCTs + tlsExtensionSCTs + ocspStapleSCTs }
}

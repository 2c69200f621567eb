import ATSPolicy
import PropertyList
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An app's dictionary compared with what its checked hosts need.
public struct TighteningReport {
    /// Keys that can go, be narrowed, or must be widened for a load to pass.
    public var findings: [TighteningFinding]
    /// What was left as written, and why (entries no checked host falls under, undecided hosts).
    public var notes: [TighteningNote]
    /// The app's whole NSAppTransportSecurity dictionary with the exception entries replaced by
    /// the minimal ones; keys the check cannot judge are kept as written.
    public var tightened: [String: PropertyListValue]

    /// Nothing to tighten or widen.
    public var isTight: Bool { findings.isEmpty }
}

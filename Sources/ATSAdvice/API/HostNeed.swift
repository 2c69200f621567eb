import ATSPolicy
import TLSFacts

/// One host an app loads, as `atsprobe plist check` measured it: what the server needs from
/// the app's dictionary, and whether the app's own dictionary already lets the load through.
public struct HostNeed: Sendable, Hashable {
    public enum Requirement: Sendable, Hashable {
        /// Default ATS passes: the host needs no exception.
        case nothing
        /// The minimal NSExceptionDomains entry the host needs (from ExceptionAdvisor).
        case exception(DomainException)
        /// An http:// load: it needs insecure HTTP loads; its TLS was not measured.
        case cleartext
        /// Not decided (unreachable, or no dictionary makes it load): entries covering it stay as written.
        case undecided(reason: String)
    }

    public var host: String
    public var requirement: Requirement
    /// The load passed under the app's own dictionary (under every NSIncludesSubdomains reading).
    public var appLoadPasses: Bool
    /// The app's NSRequiresCertificateTransparency is what failed the load: the chain's root does
    /// not require CT and the chain does not meet it (`KeyJudgement.certificateTransparencyKeyFailsLoad`).
    public var certificateTransparencyKeyFails: Bool
    /// The app's NSPinnedDomains entry for the host matches no served certificate: the load
    /// fails pinning (`KeyJudgement.failedPinning`).
    public var pinsFail: Bool

    public init(host: String, requirement: Requirement, appLoadPasses: Bool, certificateTransparencyKeyFails: Bool = false,
                pinsFail: Bool = false) {
        self.host = host
        self.requirement = requirement
        self.appLoadPasses = appLoadPasses
        self.certificateTransparencyKeyFails = certificateTransparencyKeyFails
        self.pinsFail = pinsFail
    }

    /// From the diagnostics' suggestion; `reachable` false makes the need undecided.
    public init(host: String, suggestion: ExceptionSuggestion, reachable: Bool, appLoadPasses: Bool,
                certificateTransparencyKeyFails: Bool = false, pinsFail: Bool = false) {
        let requirement: Requirement
        switch suggestion {
        case _ where !reachable: requirement = .undecided(reason: "the host could not be reached")
        case .none: requirement = .nothing
        case .exception(_, let exception, _): requirement = .exception(exception)
        case .impossible(let reason): requirement = .undecided(reason: "no dictionary makes it load: \(reason)")
        }
        self.init(host: host, requirement: requirement, appLoadPasses: appLoadPasses,
                  certificateTransparencyKeyFails: certificateTransparencyKeyFails, pinsFail: pinsFail)
    }
}

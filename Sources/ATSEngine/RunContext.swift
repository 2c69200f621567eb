import ATSContract
import ATSPolicy
import ATSProbe
import ATSTrust
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport
import TLSFacts

/// How a run judges: the rule set, the instant, trust (the anchors and their kind, caIssuers
/// fetching, the CT log list with its keys), name resolution and the runtime probes run on.
/// Built once (the command line from its options, an embedder in code), checked once by its
/// initialiser, and handed to every entry point: `DiagnosticsRunner(context:)` (diagnose, audit,
/// plist check, app), `ProbeJudgement.probe(_:context:)`, `ChainJudgement.judge(_:name:context:)`,
/// `PolicyExplanation(target:configuration:context:)`. Every default is here, once: Apple's
/// root store, Apple's CT log list (the same list judges the policy and checks the SCT
/// signatures), caIssuers fetched, the system's resolver, a 10 s timeout, no forecast.
public struct RunContext: Sendable {
    /// The ATS rule set a load is judged by.
    public var ruleSet: RuleSet
    /// The one instant every certificate of the run is judged at: a whole second (rounded down,
    /// as `Prober.evaluationDate` is), the one the reports name.
    public var instant: Date
    /// True when the instant was asked for (`--at`), not the run's own start: reports then name
    /// it ("Certificates judged at", `run.judgedAt`).
    public var instantWasAsked: Bool
    public var trust: Trust
    public var resolution: Resolution
    /// Seconds each connection's connect, handshake and request may take.
    public var timeout: Double
    /// Redirects followed per load (URLSession follows up to 16).
    public var maxRedirects: Int
    /// How far ahead, in seconds, each target's verdict is forecast from what the run observed
    /// (docs/forecast.md): `DiagnosticsRunner(context:)`'s reports and `ChainJudgement.judgeWithForecast`
    /// carry it. Between 1 s and `maximumForecastHorizonSeconds`; nil: no forecast.
    public var forecastHorizonSeconds: Int?
    /// The threads, resolver and descriptor budget the run's probes use (never an ambient one);
    /// nil for a run that connects nowhere (plist explain).
    public let runtime: ProbeRuntime?

    /// Which anchors end a chain, how missing intermediates are found, and the CT logs.
    public struct Trust: Sendable, Hashable {
        /// The system store, user-installed roots and anchors an app sets itself.
        public var anchors: AnchorConfiguration
        public var issuerFetching: IssuerFetching
        /// The CT logs SCTs are judged against, with the keys their signatures are checked with.
        public var ctLogs: CTLogList

        public init(anchors: AnchorConfiguration = AnchorConfiguration(), issuerFetching: IssuerFetching = .publicAddresses,
                    ctLogs: CTLogList = .apple) {
            self.anchors = anchors
            self.issuerFetching = issuerFetching
            self.ctLogs = ctLogs
        }

        /// The anchors as every report names them (`run.trustStore`): the system store, with its
        /// version, then the user's roots and the app's anchors.
        public var description: String {
            var parts: [String] = []
            if anchors.appAnchorFile == nil, anchors.useSystemTrustStore {
                parts.append(anchors.trustStore == .apple ? AppleRootStore.description : SystemStoreName.description)
            }
            if let file = anchors.caFile { parts.append("user-installed roots \(file)") }
            if let directory = anchors.caDirectory { parts.append("user-installed roots in \(directory)") }
            if let file = anchors.appAnchorFile { parts.append("anchors set by the app \(file) (the system store only tells system roots)") }
            return parts.joined(separator: " + ")
        }
    }

    /// Whether and where missing intermediates are fetched from caIssuers URLs.
    public enum IssuerFetching: Sendable, Hashable {
        /// Not fetched (watchOS has no network for trust).
        case off
        /// Fetched, from global addresses only unless the target is itself at a non-global one
        /// (`IssuerFetchAddressPolicy`, docs/trust.md).
        case publicAddresses
        /// Fetched from any address, loopback and private networks included.
        case anyAddress
    }

    /// How names become addresses.
    public struct Resolution: Sendable, Hashable {
        /// DNS servers in place of resolv.conf's; nil: the system's.
        public var dnsServers: DNSServerList?
        /// curl's --connect-to rules, applied to every target the run parses (`target(parsing:)`).
        public var connectTo: [ConnectToRule]

        public init(dnsServers: DNSServerList? = nil, connectTo: [ConnectToRule] = []) {
            self.dnsServers = dnsServers
            self.connectTo = connectTo
        }
    }

    /// Ten years, far beyond any certificate a public CA issues today: the longest forecast.
    public static let maximumForecastHorizonSeconds = ForecastWindowJSON.maximumHorizonSeconds

    /// Checks the values once; throws `RunContextError` for a timeout, redirect limit or forecast
    /// horizon out of range, or anchors an app sets given beside user-installed roots (which they replace).
    public init(ruleSet: RuleSet, instant: Date? = nil, trust: Trust = Trust(), resolution: Resolution = Resolution(),
                timeout: Double = 10, maxRedirects: Int = 16, forecastHorizonSeconds: Int? = nil,
                runtime: ProbeRuntime?) throws(RunContextError) {
        guard timeout > 0, timeout <= 600 else { throw .timeoutOutOfRange(timeout) }
        guard maxRedirects >= 0 else { throw .redirectsOutOfRange(maxRedirects) }
        if let horizon = forecastHorizonSeconds, !(1...Self.maximumForecastHorizonSeconds).contains(horizon) {
            throw .forecastHorizonOutOfRange(horizon)
        }
        if trust.anchors.appAnchorFile != nil, trust.anchors.caFile != nil || trust.anchors.caDirectory != nil {
            throw .appAnchorsWithUserRoots
        }
        self.ruleSet = ruleSet
        self.instant = Date(timeIntervalSince1970: (instant ?? Date()).timeIntervalSince1970.rounded(.down))
        instantWasAsked = instant != nil
        self.trust = trust
        self.resolution = resolution
        self.timeout = timeout
        self.maxRedirects = maxRedirects
        self.forecastHorizonSeconds = forecastHorizonSeconds
        self.runtime = runtime
    }

    /// The options a `Prober` of this run takes: these anchors, this instant, this log list.
    public var probeOptions: ProbeOptions {
        var options = ProbeOptions(caFile: trust.anchors.caFile, caDirectory: trust.anchors.caDirectory,
                                   useSystemTrustStore: trust.anchors.useSystemTrustStore, evaluationDate: instant,
                                   additionalSystemAnchorsFile: trust.anchors.additionalSystemAnchorsFile, ctLogs: trust.ctLogs,
                                   trustStore: trust.anchors.trustStore, fetchesMissingIssuers: trust.issuerFetching != .off,
                                   dnsServers: resolution.dnsServers?.csv)
        options.allowsPrivateIssuerFetch = trust.issuerFetching == .anyAddress
        options.appAnchorFile = trust.anchors.appAnchorFile
        return options
    }

    /// The run's `Prober` on its runtime; make one per run (it holds the run's caches).
    public func makeProber() throws(RunContextError) -> Prober {
        guard let runtime else { throw .offline }
        do {
            return try Prober(options: probeOptions, runtime: runtime)
        } catch let error as TrustSetupError {
            throw .setup(error)
        } catch {
            throw .setup(TrustSetupError(.engineUnavailable, path: nil, reason: String(describing: error)))
        }
    }

    /// `text` (a URL, HOST or HOST:PORT) as a target of this run: the connect-to rules applied.
    public func target(parsing text: String) throws(TargetParseError) -> Target {
        try Target(parsing: text).connecting(by: resolution.connectTo)
    }
}

/// A `RunContext` that cannot be used. Names values, never a command-line option.
public enum RunContextError: Error, Equatable, Sendable, CustomStringConvertible {
    case timeoutOutOfRange(Double)
    case redirectsOutOfRange(Int)
    /// A forecast horizon, in seconds, outside 1 s ... `RunContext.maximumForecastHorizonSeconds`.
    case forecastHorizonOutOfRange(Int)
    /// Anchors an app sets replace the user's roots (SecTrustSetAnchorCertificates): not both.
    case appAnchorsWithUserRoots
    /// A file of anchors could not be read, or the DNS servers not used (`TrustSetupError.path`
    /// names the file).
    case setup(TrustSetupError)
    /// The context has no runtime: it connects nowhere.
    case offline

    public var description: String {
        switch self {
        case .timeoutOutOfRange(let value): "the timeout must be between 0 and 600 seconds, got \(value)"
        case .redirectsOutOfRange(let value): "the redirect limit must not be negative, got \(value)"
        case .forecastHorizonOutOfRange(let value):
            "the forecast horizon must be between 1 and \(RunContext.maximumForecastHorizonSeconds) seconds (3650 days), got \(value)"
        case .appAnchorsWithUserRoots:
            "anchors an app sets replace every other anchor, as SecTrustSetAnchorCertificates does: give the app's anchors or user-installed roots, not both"
        case .setup(let error): error.description
        case .offline: "this run connects nowhere (its context has no runtime)"
        }
    }
}

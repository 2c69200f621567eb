import ATSReport
import ATSEngine
import ATSFiles
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

/// What the connection options ask of a run, as the command line spelled them (the executable's
/// `ConnectionOptions` maps its parsed options here), and the command line's one way to a
/// `RunContext`: each option parsed once per run (an audit's targets are parsed against the
/// context, never against the options again), the context's errors told as the option that
/// caused them (the library names no option).
package struct ConnectionSettings: Sendable {
    package var caFile: String?
    package var caDir: String?
    package var trustStore: TrustStoreChoice
    package var noAIA: Bool
    package var allowPrivateFetch: Bool
    package var connectTo: [String]
    package var timeout: Double
    package var dnsServers: String?
    package var at: String?
    package var ctLogList: String?

    package init(caFile: String?, caDir: String?, trustStore: TrustStoreChoice, noAIA: Bool, allowPrivateFetch: Bool,
                 connectTo: [String], timeout: Double, dnsServers: String?, at: String?, ctLogList: String?) {
        self.caFile = caFile
        self.caDir = caDir
        self.trustStore = trustStore
        self.noAIA = noAIA
        self.allowPrivateFetch = allowPrivateFetch
        self.connectTo = connectTo
        self.timeout = timeout
        self.dnsServers = dnsServers
        self.at = at
        self.ctLogList = ctLogList
    }

    /// The run these options describe under `ruleSet`; `appAnchor` is cert's --app-anchor;
    /// `forecastHorizonSeconds` is --forecast's (or --fail-on expiring:'s) horizon, nil: none;
    /// `runtime` nil for a command told to connect nowhere (app --offline): none is started.
    package func context(ruleSet: RuleSet, appAnchor: String?, forecastHorizonSeconds: Int?, runtime: ProbeRuntime?) throws -> RunContext {
        guard timeout > 0, timeout <= 600 else { throw InputError(.badArgument, "--timeout must be between 0 and 600 seconds, got \(timeout)") }
        let connectTo = try parsedConnectTo()
        let instant = try evaluationDate()
        let dns: DNSServerList?
        do {
            dns = try dnsServers.map { text throws(DNSServerListError) in try DNSServerList(parsing: text) }
        } catch {
            throw InputError(.badArgument, "--dns-servers \(error.description)")
        }
        let anchors = AnchorConfiguration(caFile: caFile, caDirectory: caDir, trustStore: trustStore, appAnchorFile: appAnchor)
        let trust = RunContext.Trust(anchors: anchors, issuerFetching: noAIA ? .off : allowPrivateFetch ? .anyAddress : .publicAddresses,
                                     ctLogs: try ctLogs())
        do {
            return try RunContext(ruleSet: ruleSet, instant: instant, trust: trust,
                                  resolution: RunContext.Resolution(dnsServers: dns, connectTo: connectTo),
                                  timeout: timeout, forecastHorizonSeconds: forecastHorizonSeconds, runtime: runtime)
        } catch {
            throw InputError(.badArgument, optionMessage(error, appAnchor: appAnchor))
        }
    }

    /// A context error as the option that caused it.
    fileprivate func optionMessage(_ error: RunContextError, appAnchor: String?) -> String {
        switch error {
        case .timeoutOutOfRange(let value):
            return "--timeout must be between 0 and 600 seconds, got \(value)"
        case .appAnchorsWithUserRoots:
            return "--app-anchor replaces every other anchor, as SecTrustSetAnchorCertificates does: give --app-anchor or --ca-file/--ca-dir, not both"
        case .setup(let setup):
            // Name the option as well as the file: "--ca-file 'roots.pem': no PEM certificate in file".
            if setup.code == .dnsServersUnusable { return "--dns-servers: " + setup.reason }
            guard let path = setup.path else { return setup.reason }
            let option = path == appAnchor ? "--app-anchor" : path == caFile ? "--ca-file" : "--ca-dir"
            return "\(option) '\(UntrustedText.escape(path, limit: 300))': \(setup.reason)"
        case .forecastHorizonOutOfRange(let value):
            return "--forecast must be between 1s and 3650d, got \(value) seconds"
        case .redirectsOutOfRange, .offline:
            return error.description
        }
    }

    /// --ct-log-list, read and parsed; Apple's list as built in (version 511) without it. Read
    /// once per run, into the run's context (`context(ruleSet:)`).
    func ctLogs() throws -> CTLogList {
        guard let path = ctLogList else { return .apple }
        let bytes = try FileStream.readAll(path, limit: 16 * 1024 * 1024, what: "--ct-log-list ")
        let list: CTLogList
        do {
            // Keys checked against their log IDs (ATSTrust): a broken list is refused.
            list = try CTLogList(appleLogListJSON: Data(bytes), source: path).checkingKeys(file: path)
        } catch {
            throw InputError(.badContents, "--ct-log-list: \(error.description)")
        }
        return list
    }

    /// The options given that change a verdict, as a command line spells them (`run.verdictOptions`):
    /// what a comparable baseline is recorded with.
    package func verdictOptions(ruleSet: String, judgedAt: Date?) -> [String] {
        var out = ["--rules", ruleSet]
        if let judgedAt { out += ["--at", RequestedInstant.iso(judgedAt)] }
        if trustStore != .apple { out += ["--trust-store", trustStore.rawValue] }
        if let caFile { out += ["--ca-file", caFile] }
        if let caDir { out += ["--ca-dir", caDir] }
        if let ctLogList { out += ["--ct-log-list", ctLogList] }
        if noAIA { out.append("--no-aia") }
        if allowPrivateFetch { out.append("--allow-private-fetch") }
        return out
    }

    /// --at as a Date; nil means now.
    func evaluationDate() throws -> Date? {
        guard let at else { return nil }
        do throws(RequestedInstant.ParseError) {
            return try RequestedInstant(parsing: at).date
        } catch {
            throw InputError(.badArgument, "--at '\(UntrustedText.escape(at, limit: 60))': \(error.reason) (give 2025-01-31 or 2025-01-31T12:00:00Z, RFC 3339)")
        }
    }

    /// --connect-to, each as curl spells it (TLSFacts' `ConnectToRule`).
    func parsedConnectTo() throws -> [ConnectToRule] {
        try connectTo.map { spec in
            do throws(ConnectToRuleError) {
                return try ConnectToRule(parsing: spec)
            } catch {
                throw InputError(.badArgument, "--connect-to \(error.description)")
            }
        }
    }
}

extension RunContext {
    /// The run (its prober and nscurl's runner); a file of anchors that cannot be read is bad
    /// input (64) naming its option.
    package func run(naming connection: ConnectionSettings) throws -> Run {
        do {
            return try Run(context: self)
        } catch {
            let code: InputError.Code = if case .setup(let setup) = error { InputError.Code(setup) } else { .badArgument }
            throw InputError(code, connection.optionMessage(error, appAnchor: trust.anchors.appAnchorFile))
        }
    }

    /// nscurl's runner of this context's run (diagnose, audit, plist check, app), its forecast horizon included.
    package func runner(naming connection: ConnectionSettings) throws -> DiagnosticsRunner {
        try run(naming: connection).runner
    }

    /// A target as given on the command line or an input line: parsed, --connect-to applied.
    package func target(_ text: String) throws -> Target {
        do throws(TargetParseError) { return try target(parsing: text) } catch { throw InputError(.badArgument, error.description) }
    }
}

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

/// The command line's one way to a `RunContext`: each option parsed once per run (an audit's
/// targets are parsed against the context, never against the options again), the context's
/// errors told as the option that caused them (the library names no option).
extension ConnectionOptions {
    /// The run these options describe under `ruleSet`; `appAnchor` is cert's --app-anchor;
    /// `forecastHorizonSeconds` is --forecast's (or --fail-on expiring:'s) horizon, nil: none.
    func context(ruleSet: RuleSet, appAnchor: String? = nil, forecastHorizonSeconds: Int? = nil) throws -> RunContext {
        try context(ruleSet: ruleSet, appAnchor: appAnchor, forecastHorizonSeconds: forecastHorizonSeconds, runtime: try CommandRuntime.runtime)
    }

    /// The options checked as for a run, for a command told to connect nowhere (app --offline):
    /// no runtime is started.
    func offlineContext(ruleSet: RuleSet) throws -> RunContext {
        try context(ruleSet: ruleSet, appAnchor: nil, forecastHorizonSeconds: nil, runtime: nil)
    }

    private func context(ruleSet: RuleSet, appAnchor: String?, forecastHorizonSeconds: Int?, runtime: ProbeRuntime?) throws -> RunContext {
        guard timeout > 0, timeout <= 600 else { throw InputError("--timeout must be between 0 and 600 seconds, got \(timeout)") }
        let connectTo = try parsedConnectTo()
        let instant = try evaluationDate()
        let dns: DNSServerList?
        do {
            dns = try dnsServers.map { text throws(DNSServerListError) in try DNSServerList(parsing: text) }
        } catch {
            throw InputError("--dns-servers \(error.description)")
        }
        let anchors = AnchorConfiguration(caFile: caFile, caDirectory: caDir, trustStore: trustStore, appAnchorFile: appAnchor)
        let trust = RunContext.Trust(anchors: anchors, issuerFetching: noAIA ? .off : allowPrivateFetch ? .anyAddress : .publicAddresses,
                                     ctLogs: try ctLogs())
        do {
            return try RunContext(ruleSet: ruleSet, instant: instant, trust: trust,
                                  resolution: RunContext.Resolution(dnsServers: dns, connectTo: connectTo),
                                  timeout: timeout, forecastHorizonSeconds: forecastHorizonSeconds, runtime: runtime)
        } catch {
            throw InputError(optionMessage(error, appAnchor: appAnchor))
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
}

extension RunContext {
    /// The run's prober; a file of anchors that cannot be read is bad input (64) naming its option.
    func prober(naming connection: ConnectionOptions) throws -> Prober {
        do {
            return try makeProber()
        } catch {
            let local = if case .setup(let setup) = error { setup.isLocalResource } else { false }
            throw InputError(connection.optionMessage(error, appAnchor: trust.anchors.appAnchorFile), localFailure: local)
        }
    }

    /// nscurl's runner for this context (diagnose, audit, plist check, app), its forecast horizon included.
    func runner(naming connection: ConnectionOptions) throws -> DiagnosticsRunner {
        DiagnosticsRunner(context: self, prober: try prober(naming: connection))
    }

    /// A target as given on the command line or an input line: parsed, --connect-to applied.
    func target(_ text: String) throws -> Target {
        do throws(TargetParseError) { return try target(parsing: text) } catch { throw InputError(error.description) }
    }
}

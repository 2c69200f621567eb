import ATSEngine
import ATSPolicy
import ATSProbe
import CommandRuns

/// The command line's one way to a `RunContext`: the parsed options as CommandRuns'
/// `ConnectionSettings`, which builds the context and tells its errors as the options that caused them.
extension ConnectionOptions {
    var settings: ConnectionSettings {
        ConnectionSettings(caFile: caFile, caDir: caDir, trustStore: trustStore, noAIA: noAIA, allowPrivateFetch: allowPrivateFetch,
                           connectTo: connectTo, timeout: timeout, dnsServers: dnsServers, at: at, ctLogList: ctLogList)
    }

    /// The run these options describe under `ruleSet`, on the command line's runtime; `appAnchor` is cert's --app-anchor;
    /// `forecastHorizonSeconds` is --forecast's (or --fail-on expiring:'s) horizon, nil: none.
    func context(ruleSet: RuleSet, appAnchor: String? = nil, forecastHorizonSeconds: Int? = nil) throws -> RunContext {
        try settings.context(ruleSet: ruleSet, appAnchor: appAnchor, forecastHorizonSeconds: forecastHorizonSeconds, runtime: try CommandRuntime.runtime)
    }

    /// The options checked as for a run, for a command told to connect nowhere (app --offline): no runtime is started.
    func offlineContext(ruleSet: RuleSet) throws -> RunContext {
        try settings.context(ruleSet: ruleSet, appAnchor: nil, forecastHorizonSeconds: nil, runtime: nil)
    }
}

extension RunContext {
    func run(naming connection: ConnectionOptions) throws -> Run { try run(naming: connection.settings) }
    func runner(naming connection: ConnectionOptions) throws -> DiagnosticsRunner { try runner(naming: connection.settings) }
}

import ATSPolicy
import ATSProbe
import ATSTrust
import PropertyList
import TLSFacts

// The entry points that take a `RunContext` whole (DiagnosticsRunner's is `init(context:)`):
// each reads the rule set, timeout, CT log list and forecast horizon from the one value.

extension ProbeJudgement {
    /// `atsprobe probe` under `context`: the widest offer, no HTTP request, the context's timeout,
    /// judged with its CT log list. `prober`: `context.makeProber()`'s.
    public static func probe(_ target: Target, prober: Prober, context: RunContext) async -> ProbeJudgement {
        await probe(target, prober: prober, timeout: context.timeout, logs: context.trust.ctLogs, ruleSet: context.ruleSet)
    }
}

extension ChainJudgement {
    /// `atsprobe cert` under `context`: its anchors, instant and caIssuers policy (through
    /// `prober`, `context.makeProber()`'s), its rule set's certificate rules and CT log list.
    public static func judge(_ chain: ChainFile.Chain, name: String, prober: Prober, context: RunContext) async -> ChainJudgement {
        await judge(chain, name: name, prober: prober, ruleSet: context.ruleSet, logs: context.trust.ctLogs, timeout: context.timeout)
    }

    /// The same, with the chain's forecast when `context` asks for one (`forecastHorizonSeconds`);
    /// without, the judgement alone and no forecast.
    public static func judgeWithForecast(_ chain: ChainFile.Chain, name: String, prober: Prober,
                                         context: RunContext) async -> (ChainJudgement, TargetForecast?) {
        guard let horizon = context.forecastHorizonSeconds else { return (await judge(chain, name: name, prober: prober, context: context), nil) }
        let (judgement, forecast) = await judgeWithForecast(chain, name: name, prober: prober, ruleSet: context.ruleSet,
                                                            logs: context.trust.ctLogs, timeout: context.timeout, horizonSeconds: horizon)
        return (judgement, forecast)
    }
}

extension PolicyExplanation {
    /// `atsprobe plist explain` under `context`'s rule set: a URL's requirements laid out offline.
    /// The notes on the dictionary as written come from `configuration` (KeyJudgement).
    public init(target: Target, configuration: ATSConfiguration, context: RunContext, directAddresses: [IPAddress] = []) {
        self.init(target: target, configuration: configuration, ruleSet: context.ruleSet, directAddresses: directAddresses)
    }
}

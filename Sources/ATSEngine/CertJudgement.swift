import ATSPolicy
import ATSProbe
import ATSTrust

extension ChainJudgement {
    /// `atsprobe cert`: `chain` judged as an Apple device judges an SSL server's chain for
    /// `name`, without a server: the handshake's own evaluator (`Prober.evaluate(chain:)`, with
    /// the prober's anchors, date and caIssuers fetches) and `ruleSet`'s certificate rules.
    public static func judge(_ chain: ChainFile.Chain, name: String, prober: Prober, ruleSet: RuleSet, logs: CTLogList,
                             timeout: Double) async -> ChainJudgement {
        let (facts, trust) = await prober.evaluate(chain: chain, name: name, timeout: timeout)
        return ChainJudgement(given: facts, trust: trust, name: name, rules: ruleSet.certificateRules, logs: logs)
    }
}

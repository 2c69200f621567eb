import ATSPolicy
import TLSFacts

/// nscurl's tests run once per rule set on one target (`diagnose --rules all`): which releases
/// accept the server, with and without each exception. The runs share one `LoadCache`, so an
/// offer that comes out the same under two rule sets (canonical form: `documented` and `ios13`
/// send the same ClientHello to a named host) is one handshake.
public struct RuleSetMatrix: Sendable {
    public var target: Target
    /// One report per rule set, in the order asked.
    public var reports: [DiagnosticsReport]
    /// Real handshakes made for all the rule sets together.
    public var handshakes: Int

    /// The rule sets under which the default ATS connection passes, and those under which it fails.
    public var defaultPassesOn: [String] { reports.filter(\.defaultPasses).map(\.ruleSet.id) }
    public var defaultFailsOn: [String] { reports.filter { !$0.defaultPasses }.map(\.ruleSet.id) }
}

extension DiagnosticsRunner {
    /// nscurl's tests under each of `ruleSets` on one target, concurrently (one run per rule set,
    /// at most `ruleSets.count`), sharing handshakes where the offers are the same.
    public func runAcrossRuleSets(_ target: Target, ruleSets: [RuleSet]) async -> RuleSetMatrix {
        let loads = LoadCache(prober: prober)
        let reports = await withTaskGroup(of: (Int, DiagnosticsReport).self) { group in
            for (index, ruleSet) in ruleSets.enumerated() {
                var options = self.options
                options.ruleSet = ruleSet
                let runner = DiagnosticsRunner(prober: prober, options: options)
                group.addTask { (index, await runner.run(target, onTest: nil, loads: loads)) }
            }
            var byIndex: [Int: DiagnosticsReport] = [:]
            for await (index, report) in group { byIndex[index] = report }
            return ruleSets.indices.compactMap { byIndex[$0] }
        }
        return RuleSetMatrix(target: target, reports: reports, handshakes: await loads.count)
    }
}

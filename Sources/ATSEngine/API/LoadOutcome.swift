import ATSPolicy
import TLSFacts

/// One load under one ATS dictionary: every hop, and the verdict that decides it (the first
/// failing hop's, or the last hop's when all pass).
public struct LoadOutcome: Sendable {
    public var configuration: ATSConfiguration
    public var verdict: Verdict
    public var hops: [HopOutcome]

    public init(configuration: ATSConfiguration, verdict: Verdict, hops: [HopOutcome]) {
        self.configuration = configuration
        self.verdict = verdict
        self.hops = hops
    }
}

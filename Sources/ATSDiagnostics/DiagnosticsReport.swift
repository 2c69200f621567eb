import ATSPolicy
import Foundation
import TLSFacts

/// One hop of a load: the URL, the offer made, what the server did, and the verdict.
public struct HopOutcome: Sendable {
    public var url: String
    public var offer: ClientOffer?
    public var result: ProbeResult?
    public var verdict: Verdict
}

/// One of nscurl's 16 tests.
public struct TestOutcome: Sendable {
    public var section: String
    public var title: String
    public var configuration: ATSConfiguration
    /// The first failing hop's verdict, or the last hop's when all pass.
    public var verdict: Verdict
    public var hops: [HopOutcome]
}

/// The whole diagnostics run for one target.
public struct DiagnosticsReport: Sendable {
    public enum Reachability: String, Sendable, Codable {
        /// At least one handshake completed.
        case answered
        /// The host answered TCP but never completed a TLS handshake.
        case noHandshake
        /// Nothing answered: not resolved, refused, timed out, or not TLS.
        case unreachable
    }

    public var target: Target
    public var ruleSet: String
    public var tests: [TestOutcome]
    public var suggestion: ExceptionSuggestion
    /// Real handshakes made for this target.
    public var handshakes: Int
    public var wallMilliseconds: Double
    public var reachability: Reachability

    /// The default ATS connection (the first test).
    public var defaultPasses: Bool { tests.first?.verdict.passed ?? false }

    static func reachability(of tests: [TestOutcome]) -> Reachability {
        let results = tests.flatMap(\.hops).compactMap(\.result)
        if results.contains(where: { if case .success = $0 { return true } else { return false } }) { return .answered }
        let failures = results.compactMap { if case .failure(let f) = $0 { return f } else { return nil } }
        if !failures.isEmpty && failures.allSatisfy(\.isUnreachable) { return .unreachable }
        return failures.isEmpty ? .unreachable : .noHandshake
    }
}

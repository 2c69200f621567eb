import ATSAdvice
import ATSPolicy
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

/// One hop of a load: the URL, the offer made, what the server did, and the verdict.
public struct HopOutcome: Sendable {
    public var url: String
    public var offer: ClientOffer?
    public var result: ProbeResult?
    public var verdict: Verdict
    /// The response to an http:// hop atsprobe loaded in cleartext.
    public var cleartext: HTTPExchange?

    public init(url: String, offer: ClientOffer?, result: ProbeResult?, verdict: Verdict, cleartext: HTTPExchange? = nil) {
        self.url = url
        self.offer = offer
        self.result = result
        self.verdict = verdict
        self.cleartext = cleartext
    }

    /// The HTTP response of this hop, over TLS or in cleartext.
    public var response: HTTPExchange? {
        if let cleartext { return cleartext }
        if case .success(let observation)? = result { return observation.http }
        return nil
    }
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
        /// The server spoke TLS (a handshake completed, or it answered with a TLS alert), or
        /// answered an http:// request.
        case answered
        /// Nothing spoke TLS: not resolved, refused, timed out, silent, reset, or not TLS.
        case unreachable
    }

    /// The fields, behind one reference (copied on write). Inline, a report was 929 bytes, and
    /// every async function that handles a target's report (the audit's attempt, its event, the
    /// sink) kept several copies of it in its frame for the target's whole run: 40 KB frames,
    /// per target in flight (docs/performance.md).
    private final class Storage: @unchecked Sendable {
        // @unchecked: written only through `DiagnosticsReport`'s setters, which copy a shared
        // storage first (isKnownUniquelyReferenced), so a storage two values see is never written.
        var target: Target
        var ruleSet: RuleSet
        var tests: [TestOutcome]
        var suggestion: ExceptionSuggestion
        var advice: HostAdvice
        var handshakes: Int
        var wallMilliseconds: Double
        var reachability: Reachability
        var widestProbe: ProbeResult?

        init(target: Target, ruleSet: RuleSet, tests: [TestOutcome], suggestion: ExceptionSuggestion, advice: HostAdvice,
             handshakes: Int, wallMilliseconds: Double, reachability: Reachability, widestProbe: ProbeResult?) {
            self.target = target
            self.ruleSet = ruleSet
            self.tests = tests
            self.suggestion = suggestion
            self.advice = advice
            self.handshakes = handshakes
            self.wallMilliseconds = wallMilliseconds
            self.reachability = reachability
            self.widestProbe = widestProbe
        }

        func copy() -> Storage {
            Storage(target: target, ruleSet: ruleSet, tests: tests, suggestion: suggestion, advice: advice, handshakes: handshakes,
                    wallMilliseconds: wallMilliseconds, reachability: reachability, widestProbe: widestProbe)
        }
    }

    private var storage: Storage

    /// The storage, copied first when another report shares it.
    private var unique: Storage {
        mutating get {
            if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
            return storage
        }
    }

    init(target: Target, ruleSet: RuleSet, tests: [TestOutcome], suggestion: ExceptionSuggestion, advice: HostAdvice,
         handshakes: Int, wallMilliseconds: Double, reachability: Reachability, widestProbe: ProbeResult?) {
        storage = Storage(target: target, ruleSet: ruleSet, tests: tests, suggestion: suggestion, advice: advice, handshakes: handshakes,
                          wallMilliseconds: wallMilliseconds, reachability: reachability, widestProbe: widestProbe)
    }

    public var target: Target {
        get { storage.target }
        set { unique.target = newValue }
    }
    /// The rule set the run judged by: the value itself, so a rule set built by code is the one
    /// every output names and advises by (never looked up again by name).
    public var ruleSet: RuleSet {
        get { storage.ruleSet }
        set { unique.ruleSet = newValue }
    }
    public var tests: [TestOutcome] {
        get { storage.tests }
        set { unique.tests = newValue }
    }
    public var suggestion: ExceptionSuggestion {
        get { storage.suggestion }
        set { unique.suggestion = newValue }
    }
    /// The suggestion with its evidence per key and the server fixes, from every handshake
    /// this run made (`HostAdvice.init(report:)`); what every output shows.
    public var advice: HostAdvice {
        get { storage.advice }
        set { unique.advice = newValue }
    }
    /// Real handshakes made for this target.
    public var handshakes: Int {
        get { storage.handshakes }
        set { unique.handshakes = newValue }
    }
    public var wallMilliseconds: Double {
        get { storage.wallMilliseconds }
        set { unique.wallMilliseconds = newValue }
    }
    public var reachability: Reachability {
        get { storage.reachability }
        set { unique.reachability = newValue }
    }
    /// The extra handshake with the widest offer, made only when the server spoke TLS but no
    /// test completed a handshake: it shows what the server would choose.
    public var widestProbe: ProbeResult? {
        get { storage.widestProbe }
        set { unique.widestProbe = newValue }
    }

    /// The first probe that failed because this machine ran out of descriptors, memory or
    /// threads. When set, the report says nothing about the server: callers retry or exit 70.
    public var localFailure: ProbeFailure? {
        for hop in tests.lazy.flatMap(\.hops) {
            if case .failure(let failure)? = hop.result, failure.kind == .localResources { return failure }
        }
        if case .failure(let failure)? = widestProbe, failure.kind == .localResources { return failure }
        return nil
    }

    /// The first load this run stopped on its own side before it ended (its task cancelled, or
    /// its probe runtime shut down): a TLS or cleartext load that failed as NSURLErrorCancelled.
    /// When set, the report says nothing about the server: its tests failed because they were
    /// cut short, so no verdict may be drawn from it (issue 24).
    public var interruption: ProbeFailure? {
        for hop in tests.lazy.flatMap(\.hops) {
            if case .failure(let failure)? = hop.result, failure.kind == .cancelled { return failure }
            if hop.verdict.error?.code == AppleError.cancelled {
                return ProbeFailure(kind: .cancelled, detail: hop.verdict.reasons.first.map { "\($0)" } ?? "cancelled")
            }
        }
        if case .failure(let failure)? = widestProbe, failure.kind == .cancelled { return failure }
        return nil
    }

    /// The default ATS connection (the first test).
    public var defaultPasses: Bool { tests.first?.verdict.passed ?? false }

    /// The handshake with the most to say: the widest successful one (the summary's "Server" line).
    public var bestObservation: Observation? {
        let results = tests.flatMap(\.hops).compactMap(\.result) + (widestProbe.map { [$0] } ?? [])
        return results.compactMap { try? $0.get() }.max { $0.protocolVersion < $1.protocolVersion }
    }

    /// The best handshake's chain lacked an intermediate that a caIssuers fetch supplied: what
    /// Apple clients do and most others do not (TrustAdvice, docs/trust.md).
    public var missingIntermediateWarning: String? {
        bestObservation.flatMap { TrustAdvice.missingIntermediateWarning($0.trust) }
    }

    static func reachability(of results: [ProbeResult]) -> Reachability {
        let spokeTLS = results.contains {
            switch $0 {
            case .success: return true
            case .failure(let failure): return failure.spokeTLS
            }
        }
        return spokeTLS ? .answered : .unreachable
    }
}

extension HostAdvice {
    /// The advice for one diagnostics run, with evidence from every handshake it made: the
    /// default connection's reasons, then Allow All Loads', say what fails whatever the dictionary.
    init(target: Target, ruleSet: RuleSet, tests: [TestOutcome], suggestion: ExceptionSuggestion, widestProbe: ProbeResult?) {
        let observations = tests.flatMap(\.hops).compactMap(\.result) + (widestProbe.map { [$0] } ?? [])
        let failures = tests.prefix(2).flatMap(\.verdict.reasons)
        self.init(target: target.url, host: target.host, suggestion: suggestion, observations: observations, ruleSet: ruleSet,
                  failures: failures)
    }
}

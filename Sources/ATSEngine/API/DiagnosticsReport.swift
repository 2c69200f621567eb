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

/// One of nscurl's tests (`NSCurlMatrix`), or a supplementary one.
public struct TestOutcome: Sendable {
    /// What the test asks (the default connection, Allow All Loads, an entry): how code finds it.
    public var role: DiagnosticRole
    public var section: String
    public var title: String
    public var configuration: ATSConfiguration
    /// The first failing hop's verdict, or the last hop's when all pass.
    public var verdict: Verdict
    public var hops: [HopOutcome]
}

extension Array where Element == TestOutcome {
    /// The test with `role` (nil when the run has none): never a test by its place.
    package func test(_ role: DiagnosticRole) -> TestOutcome? { first { $0.role == role } }
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

    // The larger fields are each behind a reference (`CopyOnWrite`): inline, a report was 929
    // bytes, and every async function that handles a target's report (the audit's attempt, its
    // event, the sink) kept several copies of it in its frame for the target's whole run: 40 KB
    // frames, per target in flight (docs/performance.md).
    @CopyOnWrite public var target: Target
    /// The rule set the run judged by: the value itself, so a rule set built by code is the one
    /// every output names and advises by (never looked up again by name).
    @CopyOnWrite public var ruleSet: RuleSet
    public var tests: [TestOutcome]
    @CopyOnWrite public var suggestion: ExceptionSuggestion
    /// The suggestion with its evidence per key and the server fixes, from every handshake
    /// this run made (`HostAdvice.init(report:)`); what every output shows.
    @CopyOnWrite public var advice: HostAdvice
    /// Real handshakes made for this target.
    public var handshakes: Int
    public var wallMilliseconds: Double
    public var reachability: Reachability
    /// The extra handshake with the widest offer, made only when the server spoke TLS but no
    /// test completed a handshake: it shows what the server would choose.
    @CopyOnWrite public var widestProbe: ProbeResult?
    /// `--forecast`: when the verdict changes within the horizon, and the renewal check; nil
    /// without the option (Forecast/TargetForecast.swift).
    @CopyOnWrite public var forecast: TargetForecast? = nil

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

    /// The default ATS connection's test passed.
    public var defaultPasses: Bool { tests.test(.defaultConnection)?.verdict.passed ?? false }

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
        let failures = [tests.test(.defaultConnection), tests.test(.allowAllLoads)].compactMap { $0 }.flatMap(\.verdict.reasons)
        self.init(target: target.url, host: target.host, suggestion: suggestion, observations: observations, ruleSet: ruleSet,
                  failures: failures)
    }
}

/// A value kept behind one reference and copied only when written while shared, so that a
/// struct holding it stays small wherever it is copied (an async frame keeps every copy).
@propertyWrapper
public struct CopyOnWrite<Value: Sendable>: Sendable {
    private final class Box: @unchecked Sendable {
        // @unchecked: written only through `wrappedValue`'s setter, when this box is not shared.
        var value: Value
        init(_ value: Value) { self.value = value }
    }

    private var box: Box

    public init(wrappedValue: Value) { box = Box(wrappedValue) }

    public var wrappedValue: Value {
        get { box.value }
        set {
            if isKnownUniquelyReferenced(&box) {
                box.value = newValue
            } else {
                box = Box(newValue)
            }
        }
    }
}

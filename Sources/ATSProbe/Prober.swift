#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization
import TLSFacts
import ATSTrust

/// Makes real TLS handshakes through the system OpenSSL and reports what each one showed. Not
/// public: a run's prober is made and owned by ATSEngine's `Run` from a `RunContext` (the one way in).
package final class Prober: Sendable {
    package let options: ProbeOptions
    /// The threads, resolver and descriptor budget every probe of this Prober runs on.
    package let runtime: ProbeRuntime
    /// The one date trust is judged at for everything this Prober does: `options.evaluationDate`,
    /// or the moment the Prober was made (never a fresh `Date()` per handshake, so one run judges
    /// every chain, and the engine every rule, at the same instant), rounded down to a whole
    /// second: X.509 times are whole seconds and OpenSSL judges at a time_t, and the forecast
    /// starts from this very instant, so the verdict and the forecast's "now" are one judgement
    /// (issue 40, item 10: a leaf expired 0.4 s ago was expired for the verdict and valid for
    /// the forecast).
    package let evaluationDate: Date
    private let trust: TrustStore
    private let chainTrust: ChainTrust
    private let contexts = ClientContextCache()
    private let certificates = CertificateFactsCache()
    private let counter = Counter()
    private let fetcher: IssuerFetcher
    /// The caIssuers fetcher of this Prober's probes (its resolver, its once-per-URL answers):
    /// `NetworkIssuerFetching(prober:timeout:)` fetches a run's `cert` chain through it.
    var issuerFetcher: IssuerFetcher { fetcher }
    /// The anchors, read once: a run's `ChainVerifier` judges with this store.
    package var trustStore: TrustStore { trust }
    /// This Prober's handshakes in flight (`ProbeOptions.maxHandshakesInFlight`).
    private let limiter: TaskSemaphore
    private let evaluations: TrustEvaluationCache
    /// Names, through `options.dnsServers` when given (a c-ares channel of this Prober's own, on
    /// the runtime's reactor), else the runtime's resolver (resolv.conf).
    let resolver: Resolver

    /// Throws `ProbeSetupError` when an anchor file or directory cannot be read. `runtime`:
    /// the process-wide one (`ProbeRuntime.shared`) unless given; `RuntimeStartError` when that
    /// cannot start.
    package init(options: ProbeOptions = .init(), runtime: ProbeRuntime? = nil) throws {
        let runtime = try runtime ?? ProbeRuntime.shared
        self.options = options
        self.runtime = runtime
        evaluationDate = Date(timeIntervalSince1970: (options.evaluationDate ?? Date()).timeIntervalSince1970.rounded(.down))
        trust = try TrustStore(options: options.anchors)
        evaluations = TrustEvaluationCache(executor: runtime.executor)
        chainTrust = ChainTrust(store: trust, anchors: options.anchors, date: evaluationDate,
                                verifier: SCTVerifier(keys: options.ctLogKeys), evaluations: evaluations)
        limiter = TaskSemaphore(limit: options.maxHandshakesInFlight)
        do {
            resolver = try options.dnsServers.map { servers throws(ResolverSetupError) in
                try Resolver(reactor: runtime.reactor, executor: runtime.executor, servers: servers)
            } ?? runtime.resolver
        } catch {
            throw ProbeSetupError(.dnsServersUnusable, path: nil, reason: error.reason)
        }
        fetcher = IssuerFetcher(resolver: resolver, runtime: runtime)
    }

    /// Handshakes attempted so far (a connection was tried).
    package var handshakesMade: Int { counter.value }

    /// caIssuers URLs fetched over the network so far (each at most once per Prober).
    package var issuerFetchesMade: Int { fetcher.fetchesMade }

    /// Trust evaluations run so far: one per distinct served chain, name and anchors in a run,
    /// however many handshakes were served it.
    package var trustEvaluationsMade: Int { evaluations.evaluationsMade }

    /// Served certificates read so far (each distinct one once; CertificateFactsCache).
    package var certificatesRead: Int { certificates.certificatesRead }
    /// TLS contexts built so far: one per distinct offer without its protocol range
    /// (`ClientContext.Settings`).
    package var contextsBuilt: Int { contexts.count }

    /// The anchors by content (`TrustStore.anchorsDigest`): `run.anchorsDigest` in the records.
    package var anchorsDigest: String { trust.anchorsDigest }

    /// The system store judged against, named with its version; nil without one.
    package var trustStoreName: String? { trust.storeName }
    /// Handshakes in flight now, and the most there have been at once (`maxHandshakesInFlight`
    /// bounds both).
    package var handshakesInFlight: Int { limiter.inFlight }
    package var peakHandshakesInFlight: Int { limiter.peakInFlight }

    /// The widest offer this OpenSSL can make: TLS 1.0-1.3 and every authenticated suite, strongest first.
    package static var widestOffer: ClientOffer {
        ClientOffer(minVersion: .tls10, maxVersion: .tls13, suites: CipherCatalog.shared.offerableStrongFirst)
    }

    /// The key exchange groups this OpenSSL can put in a ClientHello (not X25519MLKEM768).
    package static var sendableGroups: Set<NamedGroup> { Set(ClientContext.groupNames.keys) }

    /// Every cipher suite this OpenSSL build can offer to a web server (authenticated, encrypting),
    /// by IANA code point: the suites of `widestOffer`.
    package static var supportedSuites: Set<CipherSuite> {
        Set(CipherCatalog.shared.entries.filter(\.isOfferable).map(\.suite))
    }

    /// One handshake (and the HTTP GET when `request.httpRequest`), bounded by `request.timeout`,
    /// at most `options.maxHandshakesInFlight` at once. Cancelling the calling task ends it at once:
    /// its socket is closed and its slot freed, and the result is a `.cancelled` failure. So does
    /// shutting the runtime down. `hold`, when given, holds the handshake once the server's first
    /// answer is in and before the client reads it, until released or cancelled (`ServerHelloHold`:
    /// a speculative handshake costs no key exchange when it is not needed).
    package func probe(_ request: ProbeRequest, holding hold: ServerHelloHold? = nil) async -> ProbeResult {
        let handshake = { @Sendable (clock: Stopwatch, deadline: Deadline) -> Handshake in
            Handshake(request: request, contexts: self.contexts, attempts: self.counter,
                      clock: clock, deadline: deadline,
                      fetcher: self.options.fetchesMissingIssuers ? self.fetcher : nil,
                      allowPrivateFetch: self.options.allowsPrivateIssuerFetch,
                      chainTrust: self.chainTrust, resolver: self.resolver, certificates: self.certificates,
                      admission: self.options.connectionAdmission, hold: hold)
        }
        return Prober.result(of: await underLimits(timeout: request.timeout, { clock, deadline in await handshake(clock, deadline).run() }))
    }

    @inline(never)
    private static func result(of limited: Limited<ProbeResult>) -> ProbeResult {
        switch limited {
        case .finished(.failure(let failure), let stalled): .failure(Prober.blamingThisMachine(failure, stalled: stalled))
        // The handshake made, the HTTP response not read in time while this process was stopped.
        case .finished(.success(let observation), let stalled) where stalled >= Reactor.stallThreshold && observation.http?.failure != nil:
            .failure(Prober.blamingThisMachine(
                ProbeFailure(kind: .other, detail: "the HTTP request failed after the handshake: \(observation.http?.failure ?? "")",
                             elapsedMilliseconds: observation.connectMilliseconds + observation.handshakeMilliseconds),
                stalled: stalled))
        case .finished(let result, _): result
        case .cancelled(let failure): .failure(failure)
        }
    }

    /// A failure of a probe during which this process was seen not running for
    /// `Reactor.stallThreshold` or more (`stalled` seconds: SIGSTOP, a debugger, a CPU quota
    /// that starved it): its deadline ran while nothing here could answer the server, so it
    /// says nothing about the server. It becomes a `.localResources` failure, which callers
    /// retry and otherwise report as this machine's (exit 70), never as a TLS finding
    /// (docs/robustness.md, "A stopped or starved run"). So does a handshake whose HTTP request
    /// then failed; a complete success stands: the server answered.
    static func blamingThisMachine(_ failure: ProbeFailure, stalled: Double) -> ProbeFailure {
        guard stalled >= Reactor.stallThreshold, failure.kind != .cancelled, failure.kind != .localResources else { return failure }
        let seconds = stalled < 10 ? (stalled * 10).rounded() / 10 : stalled.rounded()
        return ProbeFailure(kind: .localResources,
                            detail: "this machine did not run for \(seconds) s during the probe (the process was stopped or starved of CPU): \(failure.detail)",
                            elapsedMilliseconds: failure.elapsedMilliseconds)
    }

    /// What `underLimits` gives: the body's value, or why it did not run to its end.
    enum Limited<Value: Sendable>: Sendable {
        /// With the seconds this process was seen not running while the body ran (`stalledSeconds`).
        case finished(Value, stalled: Double)
        case cancelled(ProbeFailure)
    }

    /// Runs `body` as every network operation of a Prober runs (a handshake, a cleartext GET):
    /// holding a slot of the runtime's `DescriptorBudget` (waited for before the clock starts: the
    /// open-file limit bounds the sockets of every Prober of the runtime), admitted by the engine's
    /// executor (before the clock starts too: the threads must keep up) and one of this Prober's
    /// handshake slots (waited for within the deadline), on the runtime's threads. A task cancelled
    /// while waiting or working, or a runtime shut down, gives `.cancelled`.
    func underLimits<Value: Sendable>(timeout: Double,
                                      _ body: @escaping @Sendable (Stopwatch, Deadline) async -> Value) async -> Limited<Value> {
        let budget = runtime.descriptorBudget, limiter = self.limiter, executor = runtime.executor, reactor = runtime.reactor
        let outcome: (Value?, Stopwatch, Double)? = await runtime.perform {
            guard await budget.acquire() else { return (nil, Stopwatch(), 0) }
            defer { budget.release() }
            // Not started while the engine's threads are behind: that wait is this machine's, not
            // the server's (EngineExecutor, "Admission").
            guard await executor.admit() else { return (nil, Stopwatch(), 0) }
            // The deadline starts now: waiting for a handshake slot or building a context counts against it.
            let clock = Stopwatch()
            let stalledBefore = reactor.stalledSeconds
            let deadline = Deadline(secondsFromNow: timeout)
            let value = await limiter.withSlot { await body(clock, deadline) }
            return (value, clock, reactor.stalledSeconds - stalledBefore)
        }
        return Prober.limited(outcome, cancelled: Task.isCancelled || runtime.isShutDown)
    }

    /// What `underLimits` gives for what its body returned. Not inlined: the failures' text would
    /// sit in `underLimits`'s async frame for the whole probe.
    @inline(never)
    private static func limited<Value: Sendable>(_ outcome: (Value?, Stopwatch, Double)?, cancelled: Bool) -> Limited<Value> {
        guard let (value, clock, stalled) = outcome else {
            return .cancelled(ProbeFailure(kind: .cancelled, detail: "cancelled before it started: the probe runtime is shut down"))
        }
        guard let value else {
            return .cancelled(ProbeFailure(kind: .cancelled, detail: "cancelled before it started",
                                           elapsedMilliseconds: clock.milliseconds))
        }
        if cancelled {
            return .cancelled(ProbeFailure(kind: .cancelled, detail: "cancelled after \(Int(clock.milliseconds)) ms",
                                           elapsedMilliseconds: clock.milliseconds))
        }
        return .finished(value, stalled: stalled)
    }
}

/// A thread-safe counter.
final class Counter: Sendable {
    private let count = Atomic<Int>(0)

    var value: Int { count.load(ordering: .relaxed) }
    func increment() { count.add(1, ordering: .relaxed) }
}

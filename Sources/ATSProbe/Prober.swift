#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization
import TLSFacts
import ATSTrust

/// Makes real TLS handshakes through the system OpenSSL and reports what each one showed.
public final class Prober: Sendable {
    public let options: ProbeOptions
    private let trust: TrustStore
    private let chainTrust: ChainTrust
    private let contexts = ClientContextCache()
    private let counter = Counter()
    private let fetcher: IssuerFetcher
    private let limiter: HandshakeLimiter
    private let evaluations = TrustEvaluationCache(executor: EngineExecutor.shared)
    /// The time chains are judged at: `options.evaluationDate`, else this run's start, so every
    /// handshake of the run is judged at one time and a chain served to many is evaluated once.
    private let evaluationDate: Date
    /// Names, through `options.dnsServers` when given (a resolver and cache of this Prober's
    /// own), else the machine's configuration (`Resolver.shared`).
    let resolver: Resolver

    /// Throws `ProbeSetupError` when an anchor file or directory cannot be read.
    public init(options: ProbeOptions = .init()) throws {
        self.options = options
        trust = try TrustStore(options: options.anchors)
        evaluationDate = options.evaluationDate ?? Date()
        chainTrust = ChainTrust(store: trust, anchors: options.anchors, date: evaluationDate,
                                verifier: SCTVerifier(keys: options.ctLogKeys), evaluations: evaluations)
        limiter = HandshakeLimiter(limit: options.maxHandshakesInFlight)
        do {
            resolver = try options.dnsServers.map { servers throws(ResolverSetupError) in try Resolver(reactor: .shared, servers: servers) }
                ?? .shared
        } catch {
            throw ProbeSetupError(path: nil, reason: "--dns-servers: \(error.reason)")
        }
        fetcher = IssuerFetcher(resolver: resolver)
    }

    /// Handshakes attempted so far (a connection was tried).
    public var handshakesMade: Int { counter.value }

    /// caIssuers URLs fetched over the network so far (each at most once per Prober).
    public var issuerFetchesMade: Int { fetcher.fetchesMade }

    /// Trust evaluations run so far: one per distinct served chain, name and anchors in a run,
    /// however many handshakes were served it.
    public var trustEvaluationsMade: Int { evaluations.evaluationsMade }

    /// The system store judged against, named with its version; nil without one.
    public var trustStoreName: String? { trust.storeName }
    /// Handshakes in flight now, and the most there have been at once (`maxHandshakesInFlight`
    /// bounds both).
    public var handshakesInFlight: Int { limiter.inFlight }
    public var peakHandshakesInFlight: Int { limiter.peakInFlight }

    /// The widest offer this OpenSSL can make: TLS 1.0-1.3 and every authenticated suite, strongest first.
    public static var widestOffer: ClientOffer {
        ClientOffer(minVersion: .tls10, maxVersion: .tls13, suites: CipherCatalog.shared.offerableStrongFirst)
    }

    /// The key exchange groups this OpenSSL can put in a ClientHello (not X25519MLKEM768).
    public static var sendableGroups: Set<NamedGroup> { Set(ClientContext.groupNames.keys) }

    /// Every cipher suite this OpenSSL build can offer to a web server (authenticated, encrypting),
    /// by IANA code point: the suites of `widestOffer`.
    public static var supportedSuites: Set<CipherSuite> {
        Set(CipherCatalog.shared.entries.filter(\.isOfferable).map(\.suite))
    }

    /// One handshake (and the HTTP GET when `request.httpRequest`), bounded by `request.timeout`,
    /// at most `options.maxHandshakesInFlight` at once. Cancelling the calling task ends it at once:
    /// its socket is closed and its slot freed, and the result is a `.cancelled` failure.
    public func probe(_ request: ProbeRequest) async -> ProbeResult {
        // Wait for a descriptor slot before the clock starts (DescriptorBudget): the process's
        // open-file limit bounds the sockets of every Prober at once.
        guard await DescriptorBudget.shared.acquire() else {
            return .failure(ProbeFailure(kind: .cancelled, detail: "cancelled before it started"))
        }
        defer { DescriptorBudget.shared.release() }
        // The deadline starts now: waiting for a handshake slot or building a context counts against it.
        let clock = Stopwatch()
        let deadline = Deadline(secondsFromNow: request.timeout)
        let handshake = Handshake(request: request, contexts: contexts, attempts: counter,
                                  clock: clock, deadline: deadline,
                                  fetcher: options.fetchesMissingIssuers ? fetcher : nil,
                                  allowPrivateFetch: options.allowsPrivateIssuerFetch,
                                  chainTrust: chainTrust, resolver: resolver)
        let limiter = self.limiter
        let result = await withTaskExecutorPreference(EngineExecutor.shared) {
            await limiter.withSlot { await handshake.run() }
        }
        if Task.isCancelled {
            return .failure(ProbeFailure(kind: .cancelled, detail: "cancelled after \(Int(clock.milliseconds)) ms",
                                         elapsedMilliseconds: clock.milliseconds))
        }
        return result ?? .failure(ProbeFailure(kind: .cancelled, detail: "cancelled before it started",
                                               elapsedMilliseconds: clock.milliseconds))
    }

    /// A chain read from a file (`atsprobe cert`), leaf first, judged for `name` exactly as a
    /// served one: the same store, caIssuers fetcher, evaluation cache and SCT check (ChainTrust).
    /// caIssuers fetches end within `timeout` seconds and follow the address policy for a target
    /// named `name` (an IP literal that is not global may fetch from its own kind of network).
    public func evaluate(chain: ChainFile.Chain, name: String, timeout: Double) async -> (chain: [CertificateFacts], trust: TrustEvaluation) {
        let deadline = Deadline(secondsFromNow: timeout)
        let policy = IssuerFetchAddressPolicy(targetAddress: name, allowPrivateFetch: options.allowsPrivateIssuerFetch)
        let fetcher = options.fetchesMissingIssuers ? self.fetcher : nil
        let (judged, trust) = await chainTrust.judge(
            served: chain.certificates.map(ServedCertificate.init), name: name,
            source: fetcher.map { IssuerFetcher.Source(fetcher: $0, policy: policy, deadline: deadline) }, policy: policy,
            fetchedIssuer: { fetcher?.fetchedIssuer(of: $0) })
        return (judged.map(\.facts), trust)
    }

    /// Many requests: identical requests are made once, at most `maxConcurrentHandshakes` at a time.
    public func probeAll(_ requests: [ProbeRequest]) async -> [ProbeRequest: ProbeResult] {
        var seen = Set<ProbeRequest>()
        let distinct = requests.filter { seen.insert($0).inserted }
        let width = max(1, options.maxConcurrentHandshakes)
        var results: [ProbeRequest: ProbeResult] = [:]
        await withTaskGroup(of: (ProbeRequest, ProbeResult).self) { group in
            var pending = distinct.makeIterator()
            // One in, one out: start `width`, then one more as each finishes.
            for _ in 0..<width {
                guard let request = pending.next() else { break }
                group.addTask { (request, await self.probe(request)) }
            }
            while let (request, result) = await group.next() {
                results[request] = result
                if let next = pending.next() {
                    group.addTask { (next, await self.probe(next)) }
                }
            }
        }
        return results
    }
}

/// A thread-safe counter.
final class Counter: Sendable {
    private let count = Atomic<Int>(0)

    var value: Int { count.load(ordering: .relaxed) }
    func increment() { count.add(1, ordering: .relaxed) }
}

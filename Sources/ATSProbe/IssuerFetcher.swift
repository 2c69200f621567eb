#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization
internal import OpenSSLSupport
internal import COpenSSL
import TLSFacts
import ATSTrust

/// Fetches caIssuers URLs over the network for the trust evaluator (ATSTrust's IssuerSource),
/// as Apple's trustd does (SecCAIssuerRequest.m): http only, the body parsed by
/// `CAIssuers.parse`. Each URL is fetched at most once per Prober (one run) and per address
/// policy, and the answer shared by every probe and target that asks for it. Every wait ends
/// by the asking probe's deadline, and a failure is a value, never a hang.
final class IssuerFetcher: Sendable {
    /// Distinct URLs remembered per run; past this, fetching stops (a hostile target list
    /// cannot grow memory without bound).
    static let cacheLimit = 10_000

    private struct Key: Hashable {
        let url: String
        let policy: IssuerFetchAddressPolicy
    }

    /// One URL's fetch, started by the first probe that asks; a second asker awaits the same
    /// task (suspended, holding no thread) instead of fetching again. `outcome` is set when it ends.
    private final class Entry: Sendable {
        let outcome = Mutex<CAIssuers.Outcome?>(nil)
        let download: Task<CAIssuers.Outcome, Never>

        init(url: String, policy: IssuerFetchAddressPolicy, deadline: Deadline, resolver: Resolver, runtime: ProbeRuntime) {
            // On the Prober's runtime, as its probes are (its threads, counted for its shutdown),
            // whoever asks: `cert` asks from outside any probe.
            download = runtime.task(orElse: .failure("not fetched: the probe runtime is shut down")) {
                await IssuerFetcher.download(url, policy: policy, deadline: deadline, resolver: resolver)
            }
        }
    }

    private let entries = Mutex<[Key: Entry]>([:])
    /// Where the URLs' host names are looked up (the Prober's, so its DNS servers apply).
    private let resolver: Resolver
    /// The Prober's runtime, every download runs on.
    private let runtime: ProbeRuntime

    init(resolver: Resolver, runtime: ProbeRuntime) {
        self.resolver = resolver
        self.runtime = runtime
    }
    private let counter = Atomic<Int>(0)

    /// Network fetches made so far (cache hits not counted): the tests' proof of "once per run".
    var fetchesMade: Int { counter.load(ordering: .relaxed) }

    func fetch(_ url: String, policy: IssuerFetchAddressPolicy, deadline: Deadline) async -> CAIssuers.Outcome {
        let key = Key(url: url, policy: policy)
        let entry: Entry? = entries.withLock { entries in
            if let entry = entries[key] { return entry }
            guard entries.count < IssuerFetcher.cacheLimit else { return nil }
            counter.add(1, ordering: .relaxed)
            let entry = Entry(url: url, policy: policy, deadline: deadline, resolver: resolver, runtime: runtime)
            entries[key] = entry
            return entry
        }
        guard let entry else { return .failure("not fetched: more than \(IssuerFetcher.cacheLimit) caIssuers URLs in this run") }
        let outcome = await entry.download.value
        entry.outcome.withLock { $0 = outcome }
        return outcome
    }

    /// A certificate that issued `cert`, from the answers already fetched for its caIssuers URLs
    /// (never fetching): the issuer an embedded SCT's signature needs when the server did not
    /// send it.
    func fetchedIssuer(of cert: X509Certificate) -> X509Certificate? {
        defer { OpenSSLErrors.clear() }
        let urls = Set(CAIssuers.caIssuerURLs(of: cert).urls)
        let answers = entries.withLock { entries in entries.filter { urls.contains($0.key.url) }.map(\.value) }
        for entry in answers {
            guard case .certificates(let ders)? = entry.outcome.withLock({ $0 }) else { continue }
            for der in ders {
                if let parent = try? X509Certificate(der: der), parent.isIssuer(of: cert) { return parent }
            }
        }
        return nil
    }

    /// One probe's view of the run's fetcher: its deadline and its address policy.
    struct Source: IssuerSource {
        let fetcher: IssuerFetcher
        let policy: IssuerFetchAddressPolicy
        let deadline: Deadline

        func certificates(from url: String) async -> CAIssuers.Outcome {
            await fetcher.fetch(url, policy: policy, deadline: deadline)
        }
    }

    /// Every address `host` resolves to (AAAA and A asked at once, within the deadline), in
    /// Happy Eyeballs' order, so the address policy can see each before any is connected to.
    static func addresses(of host: String, port: Int, deadline: Deadline,
                          resolver: Resolver) async throws(ProbeFailure) -> [TCPConnection.Address] {
        if Target.isIPAddress(host) { return try TCPConnection.numericAddresses(host: host, port: port) }
        async let v6 = resolver.lookup(host, family: .v6, deadline: deadline)
        async let v4 = resolver.lookup(host, family: .v4, deadline: deadline)
        let answers: [Resolver.Family: Resolver.Answer] = [.v6: await v6, .v4: await v4]
        var found: [TCPConnection.Address] = []
        var failures: [Resolver.Family: Resolver.LookupFailure] = [:]
        for family in [Resolver.Family.v6, .v4] {
            switch answers[family]! {
            case .success(let addresses): found += addresses.map { $0.with(port: port) }
            case .failure(let failure): failures[family] = failure
            }
        }
        guard !found.isEmpty else { throw TCPConnection.resolutionFailure(host, failures) }
        var ordered: [TCPConnection.Address] = []
        var lastFamily: Int32? = nil
        while !found.isEmpty {
            let address = found.remove(at: TCPConnection.nextAttempt(in: found, after: lastFamily))
            lastFamily = address.family
            ordered.append(address)
        }
        return ordered
    }

    /// GET `url` (HTTP/1.0, bounded), after checking every address the host resolves to against
    /// `policy`: a refused address is never connected to, and when none is left the reason says
    /// which was refused and why. Redirects are not followed (a 3xx is a failure), so a fetch
    /// can never leave the addresses checked here.
    static func download(_ url: String, policy: IssuerFetchAddressPolicy, deadline: Deadline,
                         resolver: Resolver? = nil) async -> CAIssuers.Outcome {
        guard let parsed = CAIssuers.HTTPURL(url) else {
            return .failure(url.lowercased().hasPrefix("http://") ? "not a usable http URL" : "skipped: Apple fetches http caIssuers URLs only")
        }
        guard let resolver = resolver ?? ProbeRuntime.current?.resolver else { return .failure("not fetched: no probe runtime") }
        let connection: TCPConnection
        do {
            let resolved = try await addresses(of: parsed.host, port: parsed.port, deadline: deadline, resolver: resolver)
            var refusals: [String] = []
            let allowed = resolved.filter { address in
                guard let refusal = policy.refusal(connectingTo: address.text) else { return true }
                refusals.append(refusal)
                return false
            }
            guard !allowed.isEmpty else { return .failure(refusals.first ?? "no address to connect to") }
            connection = try await TCPConnection.connect(to: allowed, port: parsed.port, deadline: deadline)
        } catch {
            return .failure(error.kind == .connectTimeout ? "connect timed out" : "cannot connect (\(error.kind.rawValue))")
        }
        let request = "GET \(parsed.path) HTTP/1.0\r\nHost: \(parsed.hostHeader)\r\nAccept: */*\r\nUser-Agent: atsprobe\r\nConnection: close\r\n\r\n"
        switch await connection.send(Array(request.utf8), deadline: deadline) {
        case .bytes: break
        case .timedOut: return .failure("request timed out")
        default: return .failure("request not sent")
        }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        reading: while true {
            switch await connection.receive(into: &buffer, deadline: deadline) {
            case .bytes(let n):
                response += buffer.prefix(n)
                if response.count > CAIssuers.responseLimit { return .failure("response larger than \(CAIssuers.responseLimit / 1024) KiB") }
            case .closed: break reading
            case .timedOut: return .failure("timed out after \(response.count) bytes")
            case .reset: return .failure("connection reset")
            case .failed(let code): return .failure("read failed (errno \(code))")
            }
        }
        return CAIssuers.parse(response)
    }
}

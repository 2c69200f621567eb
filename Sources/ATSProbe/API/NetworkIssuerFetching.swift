import ATSTrust

/// ATSTrust's `IssuerFetching` over the network, as a probe fetches: http only, each URL once
/// (the first asker fetches, later ones share the answer), every address checked against the
/// address policy before connecting (`IssuerFetchAddressPolicy`: no loopback, link-local or
/// private address unless the target is at one, or `allowsPrivateAddresses`), each fetch within
/// `timeout` seconds. Every fetch runs on `runtime` (its threads and resolver, counted for its
/// shutdown), never on another one: once `runtime` is shut down, fetches are refused.
public struct NetworkIssuerFetching: IssuerFetching {
    public let runtime: ProbeRuntime
    public let timeout: Double
    public let allowsPrivateAddresses: Bool
    private let fetcher: IssuerFetcher
    /// One deadline for every fetch (a run's `cert`: the chain's fetches end within its timeout
    /// together, as a handshake's do); nil: each fetch has `timeout` seconds of its own.
    private let deadline: Deadline?

    public init(runtime: ProbeRuntime, timeout: Double = 10, allowsPrivateAddresses: Bool = false) {
        self.runtime = runtime
        self.timeout = timeout
        self.allowsPrivateAddresses = allowsPrivateAddresses
        fetcher = IssuerFetcher(resolver: runtime.resolver, runtime: runtime)
        deadline = nil
    }

    /// A run's fetching (`Run.judge(_:name:)`): `prober`'s fetcher (its resolver, so the run's
    /// DNS servers apply, its once-per-URL answers and its count), `prober`'s address policy, and
    /// one deadline `timeout` seconds from now for every fetch of the chain.
    package init(prober: Prober, timeout: Double) {
        runtime = prober.runtime
        self.timeout = timeout
        allowsPrivateAddresses = prober.options.allowsPrivateIssuerFetch
        fetcher = prober.issuerFetcher
        deadline = Deadline(secondsFromNow: timeout)
    }

    public func certificates(from url: String, target: String) async -> IssuerFetchResult {
        let policy = IssuerFetchAddressPolicy(targetAddress: target, allowPrivateFetch: allowsPrivateAddresses)
        switch await fetcher.fetch(url, policy: policy, deadline: deadline ?? Deadline(secondsFromNow: timeout)) {
        case .certificates(let ders): return .certificates(ders)
        case .failure(let reason): return .failure(reason)
        }
    }
}

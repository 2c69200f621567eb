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

    public init(runtime: ProbeRuntime, timeout: Double = 10, allowsPrivateAddresses: Bool = false) {
        self.runtime = runtime
        self.timeout = timeout
        self.allowsPrivateAddresses = allowsPrivateAddresses
        fetcher = IssuerFetcher(resolver: runtime.resolver, runtime: runtime)
    }

    public func certificates(from url: String, target: String) async -> IssuerFetchResult {
        let policy = IssuerFetchAddressPolicy(targetAddress: target, allowPrivateFetch: allowsPrivateAddresses)
        switch await fetcher.fetch(url, policy: policy, deadline: Deadline(secondsFromNow: timeout)) {
        case .certificates(let ders): return .certificates(ders)
        case .failure(let reason): return .failure(reason)
        }
    }
}

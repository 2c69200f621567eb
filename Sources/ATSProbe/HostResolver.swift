import TLSFacts

/// The seam between a `ProbeRuntime` and name resolution: the runtime owns one resolver, every
/// connection of its probes resolves through it (`TCPConnection.connect`), and `shutdown()`
/// stops it with the runtime. Whatever resolves (today `Resolver`, a getaddrinfo pool) conforms.
protocol HostResolver: Sendable {
    /// The addresses of `host` (an address is returned as it is), within `deadline`; a name
    /// that did not resolve in time throws a `ProbeFailure`, and so does a cancelled task.
    func resolve(host: String, port: Int, deadline: Deadline) async throws(ProbeFailure) -> [TCPConnection.Address]

    /// Stops the resolver's threads (those idle at once; one inside a blocking lookup when it
    /// returns). Lookups asked afterwards fail at once.
    func shutdown()
}

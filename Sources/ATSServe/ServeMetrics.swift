import Prometheus

/// serve's own series (`GET /metrics`), kept by swift-prometheus: requests by path and status,
/// probes started by module, cache hits, probes in flight, probe and request durations. Every
/// label value comes from a fixed list (the paths serve answers, status codes, the config's
/// module names), so no request can add a series.
final class ServeMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    let cacheHits: Counter
    let inFlight: Gauge
    let probeDuration: DurationHistogram
    let requestDuration: DurationHistogram

    static let paths: Set<String> = ["/", "/probe", "/metrics", "/-/healthy", "/-/ready", "/api/diagnose", "/report"]

    init() {
        cacheHits = registry.makeCounter(descriptor: MetricNameDescriptor(namespace: "atsprobe_serve", metricName: "cache_hits", unitName: "total",
                                                                          helpText: "Scrapes answered from the cache (per target and module, for cache_ttl)."))
        inFlight = registry.makeGauge(descriptor: MetricNameDescriptor(namespace: "atsprobe_serve", metricName: "probes_in_flight", unitName: "",
                                                                       helpText: "Probes running now (at most max_in_flight)."))
        let buckets: [Duration] = [.milliseconds(5), .milliseconds(25), .milliseconds(100), .milliseconds(250), .milliseconds(500),
                                   .seconds(1), .seconds(2), .seconds(5), .seconds(10), .seconds(30), .seconds(60)]
        probeDuration = registry.makeDurationHistogram(descriptor: MetricNameDescriptor(namespace: "atsprobe_serve", metricName: "probe_duration", unitName: "seconds",
                                                                                        helpText: "Wall time of each probe (nscurl's diagnostics for one target)."),
                                                       buckets: buckets)
        requestDuration = registry.makeDurationHistogram(descriptor: MetricNameDescriptor(namespace: "atsprobe_serve", metricName: "request_duration", unitName: "seconds",
                                                                                          helpText: "Wall time of each HTTP request, from its head to its answer."),
                                                         buckets: buckets)
    }

    /// Probes started under `module`.
    func probes(module: String) -> Counter {
        registry.makeCounter(descriptor: MetricNameDescriptor(namespace: "atsprobe_serve", metricName: "probes", unitName: "total",
                                                              helpText: "Probes started, by module (a cached or shared answer starts none)."),
                             labels: [("module", module)])
    }

    /// One request answered.
    func request(path: String, status: Int, duration: Duration) {
        let known = Self.paths.contains(path) ? path : "other"
        registry.makeCounter(descriptor: MetricNameDescriptor(namespace: "atsprobe_serve", metricName: "requests", unitName: "total",
                                                              helpText: "HTTP requests answered, by path and status code."),
                             labels: [("path", known), ("code", String(status))]).increment()
        requestDuration.record(duration)
    }

    func render() -> String { registry.emitToString() }
}

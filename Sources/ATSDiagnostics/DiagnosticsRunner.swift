import ATSPolicy
import ATSProbe
import Foundation
import TLSFacts

/// What to judge by and how long to wait.
public struct DiagnosticsOptions: Sendable {
    public var ruleSet: RuleSet
    public var timeout: Double
    /// Redirects followed per load (URLSession follows up to 16; nscurl uses URLSession).
    public var maxRedirects: Int
    /// Certificates are judged as of this date; nil = now.
    public var evaluationDate: Date?

    public init(ruleSet: RuleSet = .documented, timeout: Double = 10, maxRedirects: Int = 10, evaluationDate: Date? = nil) {
        self.ruleSet = ruleSet
        self.timeout = timeout
        self.maxRedirects = maxRedirects
        self.evaluationDate = evaluationDate
    }
}

/// Runs nscurl's 16 tests against one target: each distinct client offer is one real handshake,
/// all at once; each test is a load (handshake, then GET, then redirects, each hop judged).
public struct DiagnosticsRunner: Sendable {
    public let prober: Prober
    public let options: DiagnosticsOptions

    public init(prober: Prober, options: DiagnosticsOptions) {
        self.prober = prober
        self.options = options
    }

    public func run(_ target: Target) async -> DiagnosticsReport {
        let clock = ContinuousClock()
        let start = clock.now
        let tests = NSCurlMatrix.tests(host: target.host)
        let loads = LoadCache(prober: prober)

        // Every distinct first-hop request starts at once; tests then share them.
        let firstHops = Set(tests.map { request(for: target, under: $0.configuration) }.compactMap { $0 })
        await loads.prefetch(firstHops)

        let outcomes = await withTaskGroup(of: (Int, TestOutcome).self) { group in
            for (index, test) in tests.enumerated() {
                group.addTask { (index, await self.load(target, test: test, loads: loads)) }
            }
            var results = [TestOutcome?](repeating: nil, count: tests.count)
            for await (index, outcome) in group { results[index] = outcome }
            return results.map { $0! }
        }

        let handshakes = await loads.count
        let elapsed = clock.now - start
        let pairs = zip(tests, outcomes.map(\.verdict)).map { ($0, $1) }
        let suggestion = ExceptionAdvisor.suggest(host: target.host, results: pairs, ruleSet: options.ruleSet)
        return DiagnosticsReport(
            target: target, ruleSet: options.ruleSet.id, tests: outcomes, suggestion: suggestion,
            handshakes: handshakes,
            wallMilliseconds: Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15,
            reachability: DiagnosticsReport.reachability(of: outcomes))
    }

    /// The request a test makes to `target`, or nil when the configuration blocks it before any
    /// connection (an http:// URL with no insecure-load exception).
    func request(for target: Target, under configuration: ATSConfiguration) -> ProbeRequest? {
        let policy = EffectivePolicy(configuration: configuration, host: target.host, scheme: target.scheme, ruleSet: options.ruleSet)
        guard target.scheme == .https else { return nil }
        return ProbeRequest(target: target, offer: policy.clientOffer(ruleSet: options.ruleSet).canonical,
                            httpRequest: true, timeout: options.timeout)
    }

    /// One nscurl test: the load and every redirect hop, each judged under the test's dictionary.
    func load(_ target: Target, test: DiagnosticTest, loads: LoadCache) async -> TestOutcome {
        var hops: [HopOutcome] = []
        var current = target
        var visited: Set<String> = []
        for _ in 0...options.maxRedirects {
            let policy = EffectivePolicy(configuration: test.configuration, host: current.host, scheme: current.scheme,
                                         ruleSet: options.ruleSet)
            guard current.scheme == .https else {
                // Cleartext: ATS blocks it (-1022) unless insecure HTTP loads are allowed for the
                // host. atsprobe does not load cleartext HTTP: an allowed http:// hop ends the load.
                let verdict = ATSEvaluator.evaluateRedirect(to: current, under: policy)
                hops.append(HopOutcome(url: current.url, offer: nil, result: nil, verdict: verdict))
                break
            }
            guard let request = request(for: current, under: test.configuration) else { break }
            let result = await loads.result(for: request)
            let violations: [CertificateRuleViolation]
            if case .success(let observation) = result {
                violations = AppleCertificatePolicy.violations(
                    in: observation, at: options.evaluationDate ?? Date(),
                    requireCertificateTransparency: policy.requiresCertificateTransparency)
            } else {
                violations = []
            }
            let verdict = ATSEvaluator.evaluate(result, under: policy, ruleSet: options.ruleSet, certificateViolations: violations)
            hops.append(HopOutcome(url: current.url, offer: request.offer, result: result, verdict: verdict))
            guard verdict.passed, case .success(let observation) = result,
                  let status = observation.http?.statusCode, [301, 302, 303, 307, 308].contains(status),
                  let location = observation.http?.location,
                  let next = Redirects.resolve(location, from: current) else { break }
            visited.insert(current.url)
            if visited.contains(next.url) { break }
            current = next
        }
        let final = hops.first(where: { !$0.verdict.passed })?.verdict ?? hops.last?.verdict ?? .pass
        return TestOutcome(section: test.section, title: test.title, configuration: test.configuration,
                           verdict: final, hops: hops)
    }
}

/// One handshake per distinct request, shared by every test that needs it.
actor LoadCache {
    private let prober: Prober
    private var tasks: [ProbeRequest: Task<ProbeResult, Never>] = [:]

    init(prober: Prober) { self.prober = prober }

    var count: Int { tasks.count }

    func prefetch(_ requests: Set<ProbeRequest>) {
        for request in requests { _ = task(for: request) }
    }

    func result(for request: ProbeRequest) async -> ProbeResult {
        await task(for: request).value
    }

    private func task(for request: ProbeRequest) -> Task<ProbeResult, Never> {
        if let task = tasks[request] { return task }
        let prober = self.prober
        let task = Task { await prober.probe(request) }
        tasks[request] = task
        return task
    }
}

/// Location headers: absolute or relative to the current URL; bounded and parsed as targets.
enum Redirects {
    static func resolve(_ location: String, from current: Target) -> Target? {
        guard location.utf8.count <= 2048 else { return nil }
        if location.contains("://") {
            var next = try? Target(parsing: location)
            if next?.host == current.host && next?.port == current.port {
                next?.connectAddress = current.connectAddress
                next?.connectPort = current.connectPort
            }
            return next
        }
        var next = current
        if location.hasPrefix("//") {
            return try? Target(parsing: current.scheme.rawValue + ":" + location)
        } else if location.hasPrefix("/") {
            next.path = location
        } else {
            let base = current.path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? "/"
            let directory = base.hasSuffix("/") ? base : String(base[...(base.lastIndex(of: "/") ?? base.startIndex)])
            next.path = (directory.hasPrefix("/") ? directory : "/" + directory) + location
        }
        return next
    }
}

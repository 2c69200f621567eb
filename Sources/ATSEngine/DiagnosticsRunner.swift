import ATSAdvice
import ATSPolicy
import ATSProbe
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

/// What to judge by and how long to wait.
public struct DiagnosticsOptions: Sendable {
    public var ruleSet: RuleSet
    public var timeout: Double
    /// Redirects followed per load (URLSession follows up to 16; nscurl uses URLSession).
    public var maxRedirects: Int
    /// The CT logs SCTs are judged against (Apple's list as built in, or --ct-log-list).
    public var ctLogs: CTLogList

    public init(ruleSet: RuleSet = .default, timeout: Double = 10, maxRedirects: Int = 16, ctLogs: CTLogList = .apple) {
        self.ruleSet = ruleSet
        self.timeout = timeout
        self.maxRedirects = maxRedirects
        self.ctLogs = ctLogs
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

    /// `onTest`, when given, receives each of nscurl's tests (index, outcome) once its result is
    /// final, in nscurl's order, while later tests may still be running: a test whose reason the
    /// other handshakes may still sharpen (`Explanations.isSettled`) waits for the end, so what
    /// is streamed equals the report.
    public func run(_ target: Target, onTest: (@Sendable (Int, TestOutcome) async -> Void)? = nil) async -> DiagnosticsReport {
        await run(target, onTest: onTest, loads: LoadCache(prober: prober))
    }

    /// The run over `loads`, which other runs on the same target may share (`runAcrossRuleSets`).
    func run(_ target: Target, onTest: (@Sendable (Int, TestOutcome) async -> Void)?, loads: LoadCache) async -> DiagnosticsReport {
        let clock = ContinuousClock()
        let start = clock.now
        let shown = NSCurlMatrix.tests(host: target.host)
        // Entries nscurl does not test but the advisor may suggest: insecure HTTP loads without
        // PFS off (cipher list still restricted). Their offers equal nscurl rows', so they cost
        // no extra handshake, and they keep the suggestion from switching PFS off needlessly.
        let tests = shown + DiagnosticsRunner.supplementaryTests(host: target.host)

        // Each test's policy for the target and its first-hop request, worked out once: the
        // prefetch and the test's own load both use them (deriving them costs more than the
        // verdict that follows; it was done three times per test).
        let firstHops = tests.map { test -> FirstHop in
            let policy = EffectivePolicy(configuration: test.configuration, host: target.host, scheme: target.scheme,
                                         ruleSet: options.ruleSet, subdomainReading: .anyDepth)
            return FirstHop(policy: policy, request: request(for: target, policy: policy))
        }
        // Every distinct first-hop request starts at once; tests then share them.
        await loads.prefetch(Set(firstHops.compactMap(\.request)))

        let finished = await withTaskGroup(of: (Int, TestOutcome).self) { group in
            for (index, test) in tests.enumerated() {
                group.addTask { (index, await self.load(target, test: test, firstHop: firstHops[index], loads: loads)) }
            }
            var results = [TestOutcome?](repeating: nil, count: tests.count)
            var streamed = 0
            for await (index, outcome) in group {
                results[index] = outcome
                guard let onTest else { continue }
                while streamed < shown.count, let ready = results[streamed], Explanations.isSettled(ready) {
                    await onTest(streamed, ready)
                    streamed += 1
                }
            }
            return (results.map { $0! }, streamed)
        }
        var outcomes = finished.0
        let streamed = finished.1

        // When the server answered with TLS but no test completed a handshake, one more
        // handshake with the widest offer shows what the server would choose: the reason
        // "no exception helps" then names a protocol or suite rather than a bare alert.
        var observations = outcomes.flatMap(\.hops).compactMap(\.result)
        let completed = observations.contains { if case .success = $0 { return true } else { return false } }
        let spokeTLS = observations.contains { if case .failure(let f) = $0 { return f.spokeTLS } else { return false } }
        var widestProbe: ProbeResult?
        if !completed && spokeTLS {
            let widest = ProbeRequest(target: target, offer: Prober.widestOffer, httpRequest: false, timeout: options.timeout)
            widestProbe = await loads.result(for: widest)
            observations.append(widestProbe!)
        }
        outcomes = outcomes.map { Explanations.annotate($0, with: observations) }

        let handshakes = await loads.count
        let elapsed = clock.now - start
        let pairs = zip(tests, outcomes.map(\.verdict)).map { ($0, $1) }
        outcomes.removeLast(tests.count - shown.count)
        if let onTest {
            for index in streamed..<outcomes.count { await onTest(index, outcomes[index]) }
        }
        var suggestion = ExceptionAdvisor.suggest(host: target.host, results: pairs, observations: observations,
                                                  ruleSet: options.ruleSet)
        // http:// to a port that speaks TLS: say so, never NSExceptionAllowsInsecureHTTPLoads.
        if let tlsPort = await CleartextPortCheck.suggestion(for: target, outcomes: outcomes, runner: self, loads: loads) {
            suggestion = tlsPort
        }
        return DiagnosticsReport(
            target: target, ruleSet: options.ruleSet, tests: outcomes, suggestion: suggestion,
            advice: HostAdvice(target: target, ruleSet: options.ruleSet, tests: outcomes, suggestion: suggestion, widestProbe: widestProbe),
            handshakes: handshakes,
            wallMilliseconds: Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15,
            reachability: outcomes.contains(where: { $0.hops.contains { $0.cleartext != nil } })
                ? .answered : DiagnosticsReport.reachability(of: observations),
            widestProbe: widestProbe)
    }

    static func supplementaryTests(host: String) -> [DiagnosticTest] {
        [nil, TLSVersion.tls11, .tls10].map { minimum in
            let exception = DomainException(allowsInsecureHTTPLoads: true, minimumTLSVersion: minimum?.plistName)
            return DiagnosticTest(section: "atsprobe: insecure HTTP allowed, forward secrecy required", title: minimum.map { "\($0.plistName) with insecure HTTP allowed" } ?? "Allowing Insecure HTTP",
                                  configuration: ATSConfiguration(exceptionDomains: [host: exception]))
        }
    }

    /// The request a test makes to `target`, or nil when the configuration blocks it before any
    /// connection (an http:// URL with no insecure-load exception).
    func request(for target: Target, under configuration: ATSConfiguration,
                 reading: SubdomainReading = .anyDepth) -> ProbeRequest? {
        let policy = EffectivePolicy(configuration: configuration, host: target.host, scheme: target.scheme,
                                     ruleSet: options.ruleSet, subdomainReading: reading)
        return request(for: target, policy: policy)
    }

    /// The same, from the policy already worked out for `target` (its host, scheme and reading).
    func request(for target: Target, policy: EffectivePolicy) -> ProbeRequest? {
        guard target.scheme == .https else { return nil }
        return ProbeRequest(target: target, offer: policy.clientOffer(ruleSet: options.ruleSet).canonical,
                            httpRequest: true, timeout: options.timeout)
    }

    /// A test's policy for the target itself and the request of its first hop (nil: blocked
    /// before any connection).
    struct FirstHop: Sendable {
        let policy: EffectivePolicy
        let request: ProbeRequest?
    }

    /// One load of `target` under an app's own dictionary (`atsprobe plist check`): the
    /// handshake, the GET and every redirect hop, each judged as in the diagnostics.
    /// `subdomainReading` picks how far NSIncludesSubdomains reaches.
    public func load(_ target: Target, configuration: ATSConfiguration,
                     subdomainReading: SubdomainReading = .anyDepth) async -> LoadOutcome {
        await load(target, configuration: configuration, reading: subdomainReading, loads: LoadCache(prober: prober))
    }

    /// One nscurl test: the load and every redirect hop, each judged under the test's dictionary.
    func load(_ target: Target, test: DiagnosticTest, firstHop: FirstHop? = nil, loads: LoadCache) async -> TestOutcome {
        let outcome = await load(target, configuration: test.configuration, reading: .anyDepth, firstHop: firstHop, loads: loads)
        return TestOutcome(section: test.section, title: test.title, configuration: test.configuration,
                           verdict: outcome.verdict, hops: outcome.hops)
    }

    /// `firstHop`, when given, is `configuration`'s policy for `target` and its request, already
    /// worked out by the caller (read with `.anyDepth`).
    func load(_ target: Target, configuration: ATSConfiguration, reading: SubdomainReading,
              firstHop: FirstHop? = nil, loads: LoadCache) async -> LoadOutcome {
        var hops: [HopOutcome] = []
        var current = target
        // URLs loaded so far, in order: a Location back to one of them is a loop.
        var visited: [String] = []
        while true {
            let known = hops.isEmpty ? firstHop : nil
            let policy = known?.policy ?? EffectivePolicy(configuration: configuration, host: current.host, scheme: current.scheme,
                                                          ruleSet: options.ruleSet, subdomainReading: reading)
            let hop: HopOutcome
            if current.scheme == .http {
                // Cleartext: ATS blocks it (-1022) without connecting unless insecure HTTP loads are
                // allowed for the host; then the GET is made for real, as URLSession makes it.
                let request = ProbeRequest(target: current, offer: policy.clientOffer(ruleSet: options.ruleSet),
                                           httpRequest: true, timeout: options.timeout, requestStatus: false)
                let result = policy.allowsInsecureHTTP ? await loads.cleartext(for: request) : nil
                let verdict = ATSEvaluator.evaluateCleartext(result, under: policy, ruleSet: options.ruleSet)
                var probe: ProbeResult?
                if case .failure(let failure)? = result { probe = .failure(failure) }
                hop = HopOutcome(url: current.url, offer: nil, result: probe, verdict: verdict,
                                 cleartext: try? result?.get())
            } else {
                let planned: ProbeRequest? = if let known { known.request } else { request(for: current, policy: policy) }
                guard let request = planned else { break }
                // A redirect hop on an authority already handshaken with this offer reuses that
                // handshake, as URLSession reuses the connection; only the new path's response is
                // fetched, once per URL for all tests.
                let result = hops.isEmpty ? await loads.result(for: request) : await loads.hopResult(for: request)
                let violations: [CertificateRuleViolation]
                if case .success(let observation) = result {
                    violations = AppleCertificatePolicy.violations(in: observation, at: prober.evaluationDate,
                                                                   requireCertificateTransparency: policy.requiresCertificateTransparency,
                                                                   rules: options.ruleSet.certificateRules, logs: options.ctLogs)
                } else {
                    violations = []
                }
                let verdict = ATSEvaluator.evaluate(result, under: policy, ruleSet: options.ruleSet, certificateViolations: violations)
                hop = HopOutcome(url: current.url, offer: request.offer, result: result, verdict: verdict)
            }
            hops.append(hop)
            visited.append(current.url)
            guard hop.verdict.passed, let response = hop.response,
                  let status = response.statusCode, [301, 302, 303, 307, 308].contains(status),
                  let location = response.location,
                  let next = Redirects.resolve(location, from: current) else { break }
            // URLSession follows at most 16 redirects and fails the 17th with -1007. A Location
            // back to a URL already loaded would repeat the same answers until then (atsprobe
            // sends no cookies), so it fails at once with the loop named.
            if let first = visited.firstIndex(of: next.url) {
                hops.append(HopOutcome(url: next.url, offer: nil, result: nil,
                                       verdict: ATSEvaluator.tooManyRedirects(limit: options.maxRedirects,
                                                                              loop: Array(visited[first...]) + [next.url],
                                                                              failingURL: next.url)))
                break
            }
            if visited.count > options.maxRedirects {
                hops.append(HopOutcome(url: next.url, offer: nil, result: nil,
                                       verdict: ATSEvaluator.tooManyRedirects(limit: options.maxRedirects, loop: nil,
                                                                              failingURL: next.url)))
                break
            }
            current = next
        }
        let final = hops.first(where: { !$0.verdict.passed })?.verdict ?? hops.last?.verdict ?? .pass
        return LoadOutcome(configuration: configuration, verdict: final, hops: hops)
    }
}

/// One handshake per distinct request, shared by every test that needs it.
actor LoadCache {
    private let prober: Prober
    private var tasks: [ProbeRequest: Task<ProbeResult, Never>] = [:]

    init(prober: Prober) { self.prober = prober }

    // A run that ends early (its audit deadline passed) leaves no handshake running behind it.
    deinit {
        for task in tasks.values { task.cancel() }
    }

    var count: Int { tasks.count }

    func prefetch(_ requests: Set<ProbeRequest>) {
        for request in requests { _ = task(for: request) }
    }

    func result(for request: ProbeRequest) async -> ProbeResult {
        await Self.value(of: task(for: request))
    }

    /// A shared handshake's result; cancelling the waiting run cancels the handshake (every test
    /// that shares it belongs to the same run, and ends with it).
    private static func value(of task: Task<ProbeResult, Never>) async -> ProbeResult {
        await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
    }

    /// Requests seen per authority and offer, path aside.
    private var byConnection: [ConnectionKey: ProbeRequest] = [:]
    /// One response per URL on a reused connection.
    private var responses: [String: Task<ProbeResult, Never>] = [:]

    struct ConnectionKey: Hashable {
        var host: String, port: Int, connectAddress: String?, connectPort: Int?, offer: ClientOffer
        init(_ request: ProbeRequest) {
            host = request.target.host; port = request.target.port
            connectAddress = request.target.connectAddress; connectPort = request.target.connectPort
            offer = request.offer
        }
    }

    /// For a redirect hop: the handshake already made on this connection (if any) with the HTTP
    /// response for the hop's own path.
    func hopResult(for request: ProbeRequest) async -> ProbeResult {
        let key = ConnectionKey(request)
        guard let earlier = byConnection[key] else { return await result(for: request) }
        let handshake = await Self.value(of: task(for: earlier))
        guard case .success(var observation) = handshake else { return handshake }
        let url = request.target.url
        let response: Task<ProbeResult, Never>
        if let existing = responses[url] {
            response = existing
        } else {
            response = task(for: request)
            responses[url] = response
        }
        switch await Self.value(of: response) {
        case .success(let fetched): observation.http = fetched.http
        case .failure(let failure): observation.http = HTTPExchange(statusCode: nil, failure: "request for \(url) failed: \(failure)")
        }
        return .success(observation)
    }

    /// One cleartext GET per URL and deadline, shared by every test that allows it.
    private var cleartextTasks: [ProbeRequest: Task<CleartextResult, Never>] = [:]

    func cleartext(for request: ProbeRequest) async -> CleartextResult {
        var key = request
        key.offer = ClientOffer(minVersion: .tls12, maxVersion: .tls12, suites: [])  // no TLS: the offer is moot
        if let task = cleartextTasks[key] { return await task.value }
        let prober = self.prober
        let task = Task { await prober.fetchCleartext(request) }
        cleartextTasks[key] = task
        return await task.value
    }

    private func task(for request: ProbeRequest) -> Task<ProbeResult, Never> {
        if let task = tasks[request] { return task }
        byConnection[ConnectionKey(request)] = byConnection[ConnectionKey(request)] ?? request
        let prober = self.prober
        // Detached: a Task made inside the actor would inherit its isolation and hold the actor,
        // which holds the task: a cycle that outlived every run (LeakSanitizer, docs/robustness.md).
        let task = Task.detached { await prober.probe(request) }
        tasks[request] = task
        return task
    }
}

import ATSAdvice
import ATSPolicy
import ATSProbe
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

/// What to judge by and how long to wait: a `RunContext`'s rule set, timeout, redirect limit and
/// forecast horizon as the runner reads them (`Run(context:)` makes them; not public).
package struct DiagnosticsOptions: Sendable {
    package var ruleSet: RuleSet
    package var timeout: Double
    /// Redirects followed per load (URLSession follows up to 16; nscurl uses URLSession).
    package var maxRedirects: Int
    // No CT log list here: the prober's (`ProbeOptions.ctLogs`), the list that checks the SCTs'
    // signatures, judges Apple's CT policy too.

    /// How far ahead, in seconds, to forecast each target's verdict (docs/forecast.md); nil: no
    /// forecast. `init(context:)` takes it from `RunContext.forecastHorizonSeconds`, checked there.
    package var forecastHorizonSeconds: Int?
    /// Apple's date-based distrust of roots. TEST SEAM (`AppleDistrustList.adding`).
    package var distrust: AppleDistrustList = .apple
    /// Whether nscurl's run starts the widest offer's handshake with its first wave (issue 43;
    /// `DiagnosticsRun.speculativeRequest`). TEST SEAM, off only where a test compares exact
    /// counts of handshakes made or connections accepted: a passing host withdraws it when its
    /// first test completes a handshake, and whether it had reached the server by then varies.
    var speculatesWidestOffer = true
    /// How long the speculative handshake may wait with the server's first answer unread, in
    /// place of `ServerHelloHold.holdLimit`'s bound from its own time. TEST SEAM, for a test that
    /// counts the server's completed handshakes on a loaded machine.
    var speculativeHoldSeconds: Double?

    package init(ruleSet: RuleSet, timeout: Double = 10, maxRedirects: Int = 16, forecastHorizonSeconds: Int? = nil) {
        self.ruleSet = ruleSet
        self.timeout = timeout
        self.maxRedirects = maxRedirects
        self.forecastHorizonSeconds = forecastHorizonSeconds
    }
}

/// Runs nscurl's 16 tests against one target: each distinct client offer is one real handshake,
/// all at once; each test is a load (handshake, then GET, then redirects, each hop judged).
/// A run's (`Run.runner`): made only from a `RunContext`, over the prober that context made.
public struct DiagnosticsRunner: Sendable {
    package let prober: Prober
    package let options: DiagnosticsOptions

    package init(prober: Prober, options: DiagnosticsOptions) {
        self.prober = prober
        self.options = options
    }

    /// The run `context` describes (tests: `Run(context:).runner` is the public way).
    package init(context: RunContext) throws(RunContextError) {
        self = try Run(context: context).runner
    }

    /// The run `context` describes over `prober`, which the same context's options made (`Run`).
    package init(context: RunContext, prober: Prober) {
        self.init(prober: prober,
                  options: DiagnosticsOptions(ruleSet: context.ruleSet, timeout: context.timeout, maxRedirects: context.maxRedirects,
                                              forecastHorizonSeconds: context.forecastHorizonSeconds))
    }

    /// `onTest`, when given, receives each of nscurl's tests (index, outcome) once its result is
    /// final, in nscurl's order, while later tests may still be running: a test whose reason the
    /// other handshakes may still sharpen (`Explanations.isSettled`) waits for the end, so what
    /// is streamed equals the report.
    ///
    /// The run, its loads and its judgement run on the prober's engine threads (the runtime's
    /// task executor, which every task it makes inherits), as its handshakes do: a handshake's
    /// end resumes the test that waits for it on the thread that finished it, with no hop to
    /// Swift's global pool and back (issue 43, docs/performance.md "Wake-ups"). `onTest` is
    /// called off those threads (it may write to a terminal).
    public func run(_ target: Target, onTest: (@Sendable (Int, TestOutcome) async -> Void)? = nil) async -> DiagnosticsReport {
        let runtime = prober.runtime
        return await run(target, onTest: onTest.map { onTest in
            { @Sendable index, outcome in await runtime.offEngine { await onTest(index, outcome) } }
        }, loads: LoadCache(prober: prober))
    }

    /// The run over `loads`, which other runs on the same target may share (`runAcrossRuleSets`).
    /// Only the waits are here; the rest is `DiagnosticsRun`'s synchronous methods, so that this
    /// frame, alive for the target's whole run, holds little (judged inline it was 19,680 bytes).
    func run(_ target: Target, onTest: (@Sendable (Int, TestOutcome) async -> Void)?, loads: LoadCache) async -> DiagnosticsReport {
        await prober.runtime.onEngine { await judged(target, onTest: onTest, loads: loads) }
    }

    private func judged(_ target: Target, onTest: (@Sendable (Int, TestOutcome) async -> Void)?, loads: LoadCache) async -> DiagnosticsReport {
        let run = DiagnosticsRun(runner: self, target: target)
        // Every distinct first-hop handshake starts at once; tests then share them. So does the
        // widest offer's, in case no test completes one (`widestRequestNeeded`): made only after
        // the others had failed it cost a failing host a round trip more (issue 43). Its answer
        // is used, and counted, only when needed; until then it waits with the server's first
        // answer unread, and it is withdrawn, before its key exchange, as soon as a test
        // completes a handshake (`LoadCache.start`).
        let handshakes = await loads.start(run.handshakeRequests, speculating: run.speculativeRequest,
                                           holdingAtMost: options.speculativeHoldSeconds)

        // One waiter per distinct handshake, not a task per test: when a handshake ends, every
        // test whose first hop it is is judged at once (`DiagnosticsRun.arrived`). Only a test
        // whose load goes on (a redirect, a cleartext GET) gets a task of its own. (A task per
        // test, 19 per target, each suspended for the whole run, held about 129 kB of async
        // frames per target in flight; heaptrack, docs/performance.md.)
        let shown = run.shownCount
        let streamed = await withTaskGroup(of: DiagnosticsRun.Arrival.self) { group in
            for (handshake, task) in handshakes.enumerated() {
                group.addTask { .handshake(handshake, await LoadCache.value(of: task)) }
            }
            for index in run.testsWithoutHandshake {
                let walk = run.walk(for: index)
                group.addTask { .test(index, await self.finish(walk, loads: loads)) }
            }
            var streamed = 0
            var speculating = run.speculativeRequest
            for await arrival in group {
                if let request = speculating, case .handshake(_, .success) = arrival {
                    await loads.withdraw(request)
                    speculating = nil
                }
                for (index, walk) in run.arrived(arrival) {
                    group.addTask { .test(index, await self.finish(walk, loads: loads)) }
                }
                guard let onTest else { continue }
                while streamed < shown, let ready = run.settledOutcome(at: streamed) {
                    await onTest(streamed, ready)
                    streamed += 1
                }
            }
            return streamed
        }

        // When the server answered with TLS but no test completed a handshake, one more
        // handshake with the widest offer shows what the server would choose: the reason
        // "no exception helps" then names a protocol or suite rather than a bare alert.
        if let widest = run.widestRequestNeeded() {
            run.widestProbe = await loads.result(for: widest)
        } else if let request = run.speculativeRequest {
            await loads.withdraw(request)
        }
        // A withdrawn handshake ends at once, cancelled; the run waits for that, so that it
        // leaves no handshake of its own running behind it.
        await loads.settleWithdrawn()
        run.annotate(handshakes: await loads.count)
        if let onTest {
            for index in streamed..<run.shownCount { await onTest(index, run.outcome(at: index)) }
        }
        // http:// to a port that speaks TLS: say so, never NSExceptionAllowsInsecureHTTPLoads.
        let tlsPort = await CleartextPortCheck.suggestion(for: target, outcomes: run.shownOutcomes, runner: self, loads: loads)
        return run.report(tlsPortSuggestion: tlsPort)
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
        await prober.runtime.onEngine {
            await load(target, configuration: configuration, reading: subdomainReading, loads: LoadCache(prober: prober))
        }
    }

    /// `firstHop`, when given, is `configuration`'s policy for `target` and its request, already
    /// worked out by the caller (read with `.anyDepth`).
    func load(_ target: Target, configuration: ATSConfiguration, reading: SubdomainReading,
              firstHop: FirstHop? = nil, loads: LoadCache) async -> LoadOutcome {
        await finish(LoadWalk(runner: self, target: target, configuration: configuration, reading: reading, firstHop: firstHop),
                     loads: loads)
    }

    /// The rest of a load: each fetch it still needs, in turn.
    ///
    /// Only the fetches are here; the hops are judged in `LoadWalk`'s synchronous methods. An
    /// async function's frame holds every temporary of what is inlined into it for as long as
    /// the task lives: judged inline, a load's frame was 29,104 bytes, and a target ran 19
    /// loads at once (553 kB per target in flight; heaptrack, docs/performance.md).
    func finish(_ walk: LoadWalk, loads: LoadCache) async -> LoadOutcome {
        while let fetch = walk.next() {
            switch fetch {
            case .cleartext(let request): walk.record(cleartext: await loads.cleartext(for: request))
            case .firstHop(let request): walk.record(await loads.result(for: request), certificateRules: nil)
            case .redirect(let request): walk.record(await loads.hopResult(for: request), certificateRules: nil)
            }
        }
        return walk.outcome
    }
}

/// One target's diagnostics between its waits: the tests and their first hops, the outcomes as
/// they arrive, and the report. Each step is a synchronous, non-inlined method (see `LoadWalk`).
final class DiagnosticsRun: @unchecked Sendable {
    // @unchecked: written only by the run's own task, between its awaits (the task group's
    // children read `tests` and `firstHops`, which are never written after init).
    let runner: DiagnosticsRunner
    let target: Target
    private let start = ContinuousClock.now
    /// nscurl's tests, then the supplementary ones (`NSCurlMatrix.supplementaryTests`).
    let tests: [DiagnosticTest]
    /// How many of `tests` nscurl shows.
    let shownCount: Int
    /// Each test's policy for the target and its first-hop request, worked out once: starting
    /// the handshakes and judging each test's first hop both use them (deriving them costs more
    /// than the verdict that follows; it was done three times per test).
    let firstHops: [DiagnosticsRunner.FirstHop]
    var outcomes: [TestOutcome?]
    var widestProbe: ProbeResult?
    var observations: [ProbeResult] = []
    private var handshakes = 0
    private var elapsed: Duration = .zero

    @inline(never)
    init(runner: DiagnosticsRunner, target: Target) {
        self.runner = runner
        self.target = target
        let shown = NSCurlMatrix.tests(host: target.host)
        shownCount = shown.count
        // Entries nscurl does not test but the advisor may suggest: insecure HTTP loads without
        // PFS off (cipher list still restricted). Their offers equal nscurl rows', so they cost
        // no extra handshake, and they keep the suggestion from switching PFS off needlessly.
        tests = shown + NSCurlMatrix.supplementaryTests(host: target.host)
        let options = runner.options
        firstHops = tests.map { test -> DiagnosticsRunner.FirstHop in
            let policy = EffectivePolicy(configuration: test.configuration, host: target.host, scheme: target.scheme,
                                         ruleSet: options.ruleSet, subdomainReading: .anyDepth)
            return DiagnosticsRunner.FirstHop(policy: policy, request: runner.request(for: target, policy: policy))
        }
        var places: [ProbeRequest: Int] = [:]
        var requests: [ProbeRequest] = []
        var ofTest: [Int?] = []
        for request in firstHops.map(\.request) {
            if let request, places[request] == nil {
                places[request] = requests.count
                requests.append(request)
            }
            ofTest.append(request.flatMap { places[$0] })
        }
        handshakeRequests = requests
        handshakeOfTest = ofTest
        speculativeRequest = options.speculatesWidestOffer && target.scheme == .https
            && requests.count < DiagnosticsRun.handshakeBudget
            ? Self.widestRequest(for: target, timeout: options.timeout) : nil
        outcomes = Array(repeating: nil, count: tests.count)
    }

    /// What a run waits for: a first-hop handshake (shared by the tests that make it), or a
    /// test's whole load.
    enum Arrival: Sendable {
        /// The handshake's place in `handshakeRequests`, and its result.
        case handshake(Int, ProbeResult)
        case test(Int, LoadOutcome)
    }

    /// The distinct first-hop handshakes, in the order of the first test that makes each.
    let handshakeRequests: [ProbeRequest]
    /// The widest offer's handshake, started with `handshakeRequests` when they leave room in
    /// `handshakeBudget` (an https:// target), so that a host where no test completes a
    /// handshake is diagnosed in one wave of connections (issue 43); nil: made only if needed.
    let speculativeRequest: ProbeRequest?
    /// The most handshakes a target's first wave makes, the speculative one included (issue 43:
    /// 10 distinct offers for nscurl's 16 tests under the default rule set, plus the widest).
    static let handshakeBudget = 12
    /// Each test's first-hop handshake, as its place in `handshakeRequests` (nil: none).
    private let handshakeOfTest: [Int?]

    /// Tests whose load starts without a handshake (an http:// target: a cleartext GET, or
    /// blocked before any connection).
    var testsWithoutHandshake: [Int] { firstHops.indices.filter { firstHops[$0].request == nil } }

    /// Test `index`'s load, at its start.
    func walk(for index: Int) -> LoadWalk {
        LoadWalk(runner: runner, target: target, configuration: tests[index].configuration, reading: .anyDepth,
                 firstHop: firstHops[index])
    }

    /// Records what arrived: a test's outcome, or a handshake, which judges the first hop of
    /// every test that makes it. Returns the tests whose load goes on (a redirect to follow),
    /// with their walks, for the caller to finish.
    @inline(never)
    func arrived(_ arrival: Arrival) -> [(Int, LoadWalk)] {
        switch arrival {
        case .test(let index, let outcome):
            complete(index, with: outcome)
            return []
        case .handshake(let handshake, let result):
            var goingOn: [(Int, LoadWalk)] = []
            for index in firstHops.indices where handshakeOfTest[index] == handshake {
                let walk = walk(for: index)
                // Always a first hop here (the request is the test's first hop); were it not, the
                // test's own task would make its load from the start.
                guard case .firstHop? = walk.next() else {
                    goingOn.append((index, self.walk(for: index)))
                    continue
                }
                walk.record(result, certificateRules: nil)
                if walk.isFinished {
                    complete(index, with: walk.outcome)
                } else {
                    goingOn.append((index, walk))
                }
            }
            return goingOn
        }
    }

    private func complete(_ index: Int, with outcome: LoadOutcome) {
        let test = tests[index]
        outcomes[index] = TestOutcome(role: test.role, section: test.section, title: test.title, configuration: test.configuration,
                                      verdict: outcome.verdict, hops: outcome.hops)
    }

    /// Test `index`'s outcome when it has arrived and no other handshake can sharpen its reason.
    @inline(never)
    func settledOutcome(at index: Int) -> TestOutcome? {
        guard let ready = outcomes[index], Explanations.isSettled(ready) else { return nil }
        return ready
    }

    func outcome(at index: Int) -> TestOutcome { outcomes[index]! }

    var shownOutcomes: [TestOutcome] { outcomes.prefix(shownCount).map { $0! } }

    /// The widest offer's request when the server spoke TLS but no test completed a handshake.
    @inline(never)
    func widestRequestNeeded() -> ProbeRequest? {
        observations = outcomes.flatMap { $0!.hops }.compactMap(\.result)
        let completed = observations.contains { if case .success = $0 { return true } else { return false } }
        let spokeTLS = observations.contains { if case .failure(let f) = $0 { return f.spokeTLS } else { return false } }
        guard !completed && spokeTLS else { return nil }
        return Self.widestRequest(for: target, timeout: runner.options.timeout)
    }

    static func widestRequest(for target: Target, timeout: Double) -> ProbeRequest {
        ProbeRequest(target: target, offer: Prober.widestOffer, httpRequest: false, timeout: timeout)
    }

    /// Every outcome's reason sharpened by what all the handshakes saw.
    @inline(never)
    func annotate(handshakes: Int) {
        if let widestProbe { observations.append(widestProbe) }
        outcomes = outcomes.map { Explanations.annotate($0!, with: observations) }
        self.handshakes = handshakes
        elapsed = ContinuousClock.now - start
    }

    @inline(never)
    func report(tlsPortSuggestion: ExceptionSuggestion?) -> DiagnosticsReport {
        let options = runner.options
        let all = outcomes.map { $0! }
        let pairs = zip(tests, all.map(\.verdict)).map { ($0, $1) }
        let shown = Array(all.prefix(shownCount))
        let suggestion = tlsPortSuggestion ?? ExceptionAdvisor.suggest(host: target.host, results: pairs, observations: observations,
                                                                       ruleSet: options.ruleSet)
        var report = DiagnosticsReport(
            target: target, ruleSet: options.ruleSet, tests: shown, suggestion: suggestion,
            advice: HostAdvice(target: target, ruleSet: options.ruleSet, tests: shown, suggestion: suggestion, widestProbe: widestProbe),
            handshakes: handshakes,
            wallMilliseconds: Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15,
            reachability: shown.contains(where: { $0.hops.contains { $0.cleartext != nil } })
                ? .answered : DiagnosticsReport.reachability(of: observations),
            widestProbe: widestProbe)
        if let horizon = options.forecastHorizonSeconds {
            report.forecast = forecast(horizonSeconds: horizon, tlsPortSuggestion: tlsPortSuggestion,
                                       now: ForecastState(verdict: AuditVerdict(report), suggestion: suggestion))
        }
        return report
    }
}

/// One load between its fetches: the hops judged so far and where the next one goes. Each step
/// is a synchronous, non-inlined method, so that what judging a hop needs lives on a thread's
/// stack for the call, not in the load's async frame for the task's life.
final class LoadWalk: @unchecked Sendable {
    // @unchecked: used by one task at a time (the run hands a walk to the task that finishes
    // it, and never touches it again).

    /// What the load waits for next.
    enum Fetch {
        /// A cleartext GET (insecure HTTP loads allowed for the host).
        case cleartext(ProbeRequest)
        /// The handshake (and GET) of the first hop, shared by every test with its request.
        case firstHop(ProbeRequest)
        /// A redirect hop: a handshake made on this connection already is reused.
        case redirect(ProbeRequest)
    }

    private let runner: DiagnosticsRunner
    private let configuration: ATSConfiguration
    private let reading: SubdomainReading
    private let firstHop: DiagnosticsRunner.FirstHop?
    private var hops: [HopOutcome] = []
    private var current: Target
    /// URLs loaded so far, in order: a Location back to one of them is a loop.
    private var visited: [String] = []
    /// The policy and request of the hop being fetched.
    private var pending: (policy: EffectivePolicy, request: ProbeRequest)?
    private var finished = false

    init(runner: DiagnosticsRunner, target: Target, configuration: ATSConfiguration, reading: SubdomainReading,
         firstHop: DiagnosticsRunner.FirstHop?) {
        self.runner = runner
        self.configuration = configuration
        self.reading = reading
        self.firstHop = firstHop
        current = target
    }

    private var options: DiagnosticsOptions { runner.options }

    /// Whether the load has ended (`next()` would return nil without judging anything).
    var isFinished: Bool { finished }

    /// The next fetch, or nil when the load has ended. A cleartext hop that ATS blocks is judged
    /// here without a fetch.
    @inline(never)
    func next() -> Fetch? {
        while !finished {
            let known = hops.isEmpty ? firstHop : nil
            let policy = known?.policy ?? EffectivePolicy(configuration: configuration, host: current.host, scheme: current.scheme,
                                                          ruleSet: options.ruleSet, subdomainReading: reading)
            if current.scheme == .http {
                // Cleartext: ATS blocks it (-1022) without connecting unless insecure HTTP loads are
                // allowed for the host; then the GET is made for real, as URLSession makes it.
                let request = ProbeRequest(target: current, offer: policy.clientOffer(ruleSet: options.ruleSet),
                                           httpRequest: true, timeout: options.timeout, requestStatus: false)
                pending = (policy, request)
                if policy.allowsInsecureHTTP { return .cleartext(request) }
                record(cleartext: nil)
                continue
            }
            let planned: ProbeRequest? = if let known { known.request } else { runner.request(for: current, policy: policy) }
            guard let request = planned else { break }
            pending = (policy, request)
            // A redirect hop on an authority already handshaken with this offer reuses that
            // handshake, as URLSession reuses the connection; only the new path's response is
            // fetched, once per URL for all tests.
            return hops.isEmpty ? .firstHop(request) : .redirect(request)
        }
        finished = true
        return nil
    }

    /// Judges the cleartext hop fetched (nil: blocked before any connection).
    @inline(never)
    func record(cleartext result: CleartextResult?) {
        guard let (policy, _) = pending else { return }
        let verdict = ATSEvaluator.evaluateCleartext(result, under: policy, ruleSet: options.ruleSet)
        var probe: ProbeResult?
        if case .failure(let failure)? = result { probe = .failure(failure) }
        advance(after: HopOutcome(url: current.url, offer: nil, result: probe, verdict: verdict, cleartext: try? result?.get()))
    }

    /// Judges the TLS hop fetched, Apple's certificate rules at the prober's instant, unless
    /// `certificateRules` gives them (CT required or not, as the hop's policy asks): a forecast
    /// works them out once per distinct handshake and instant (Forecast/ForecastJudge.swift).
    @inline(never)
    func record(_ result: ProbeResult, certificateRules: ((_ requireCertificateTransparency: Bool) -> [CertificateRuleViolation])?) {
        guard let (policy, request) = pending else { return }
        let violations: [CertificateRuleViolation]
        if case .success(let observation) = result {
            violations = certificateRules?(policy.requiresCertificateTransparency)
                ?? AppleCertificatePolicy.violations(in: observation, at: runner.prober.evaluationDate,
                                                     requireCertificateTransparency: policy.requiresCertificateTransparency,
                                                     rules: options.ruleSet.certificateRules, logs: runner.prober.options.ctLogs,
                                                     distrust: options.distrust)
        } else {
            violations = []
        }
        let verdict = ATSEvaluator.evaluate(result, under: policy, ruleSet: options.ruleSet, certificateViolations: violations)
        advance(after: HopOutcome(url: current.url, offer: request.offer, result: result, verdict: verdict))
    }

    /// Adds `hop` and moves to its redirect target, or ends the load.
    private func advance(after hop: HopOutcome) {
        pending = nil
        hops.append(hop)
        visited.append(current.url)
        guard hop.verdict.passed, let response = hop.response,
              let status = response.statusCode, [301, 302, 303, 307, 308].contains(status),
              let location = response.location,
              let next = Redirects.resolve(location, from: current) else {
            finished = true
            return
        }
        // URLSession follows at most 16 redirects and fails the 17th with -1007. A Location
        // back to a URL already loaded would repeat the same answers until then (atsprobe
        // sends no cookies), so it fails at once with the loop named.
        if let first = visited.firstIndex(of: next.url) {
            hops.append(HopOutcome(url: next.url, offer: nil, result: nil,
                                   verdict: ATSEvaluator.tooManyRedirects(limit: options.maxRedirects,
                                                                          loop: Array(visited[first...]) + [next.url],
                                                                          failingURL: next.url)))
            finished = true
            return
        }
        if visited.count > options.maxRedirects {
            hops.append(HopOutcome(url: next.url, offer: nil, result: nil,
                                   verdict: ATSEvaluator.tooManyRedirects(limit: options.maxRedirects, loop: nil,
                                                                          failingURL: next.url)))
            finished = true
            return
        }
        current = next
    }

    /// The load's outcome: its first failing hop's verdict, else its last hop's.
    var outcome: LoadOutcome {
        let final = hops.first(where: { !$0.verdict.passed })?.verdict ?? hops.last?.verdict ?? .pass
        return LoadOutcome(configuration: configuration, verdict: final, hops: hops)
    }
}

/// One handshake per distinct request, shared by every test that needs it.
actor LoadCache {
    private let prober: Prober
    private var tasks: [ProbeRequest: Task<ProbeResult, Never>] = [:]

    init(prober: Prober) { self.prober = prober }

    // A run that ends early (its audit deadline passed) leaves no handshake or cleartext GET
    // running behind it.
    deinit {
        for task in tasks.values { task.cancel() }
        for task in cleartextTasks.values { task.cancel() }
    }

    /// Handshakes made whose answers a run used: a speculative one not (yet) asked for is not
    /// counted, whether it is still running or was withdrawn.
    var count: Int { tasks.count - unclaimed.count }

    /// Speculative handshakes no run has asked for yet (`start(_:speculating:)`), each with the
    /// hold it waits at once the server's first answer is in.
    private var unclaimed: [ProbeRequest: ServerHelloHold] = [:]

    /// The handshake of each request, started now unless it already was; and `speculative`'s,
    /// which counts only once a run asks for it (`result(for:)`). Until then it is held with the
    /// server's first answer (its ServerHello) unread, so that withdrawn it has cost the client
    /// its ClientHello and no key exchange, certificate or signature (`ServerHelloHold`); asked
    /// for, it goes on from there.
    func start(_ requests: [ProbeRequest], speculating speculative: ProbeRequest? = nil,
               holdingAtMost limit: Double? = nil) -> [Task<ProbeResult, Never>] {
        let started = requests.map(task(for:))
        if let speculative, tasks[speculative] == nil {
            let prober = self.prober
            let hold = ServerHelloHold(limit: limit)
            tasks[speculative] = prober.runtime.detachedOnEngine { await prober.probe(speculative, holding: hold) }
            unclaimed[speculative] = hold
        }
        return started
    }

    /// Cancels a speculative handshake no run has asked for; a run that asks for it later gets a
    /// new one. Does nothing to a handshake already asked for.
    func withdraw(_ request: ProbeRequest) {
        guard unclaimed.removeValue(forKey: request) != nil, let task = tasks.removeValue(forKey: request) else { return }
        task.cancel()
        withdrawn.append(task)
    }

    /// Withdrawn handshakes not yet ended.
    private var withdrawn: [Task<ProbeResult, Never>] = []

    /// Returns once every withdrawn handshake has ended (cancelled, each ends at once).
    func settleWithdrawn() async {
        while let task = withdrawn.popLast() { _ = await task.value }
    }

    func result(for request: ProbeRequest) async -> ProbeResult {
        await Self.value(of: task(for: request))
    }

    /// A shared handshake's result; cancelling the waiting run cancels the handshake (every test
    /// that shares it belongs to the same run, and ends with it).
    static func value(of task: Task<ProbeResult, Never>) async -> ProbeResult {
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

    /// One cleartext GET per URL and deadline, shared by every test that allows it. Owned as the
    /// handshakes are: detached (no cycle through the actor), cancelled by `deinit` and by the
    /// cancellation of any run waiting for it (every waiter belongs to the same run).
    private var cleartextTasks: [ProbeRequest: Task<CleartextResult, Never>] = [:]

    func cleartext(for request: ProbeRequest) async -> CleartextResult {
        var key = request
        key.offer = ClientOffer(minVersion: .tls12, maxVersion: .tls12, suites: [])  // no TLS: the offer is moot
        let task: Task<CleartextResult, Never>
        if let existing = cleartextTasks[key] {
            task = existing
        } else {
            let prober = self.prober
            task = prober.runtime.detachedOnEngine { await prober.fetchCleartext(request) }
            cleartextTasks[key] = task
        }
        return await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
    }

    private func task(for request: ProbeRequest) -> Task<ProbeResult, Never> {
        if let hold = unclaimed.removeValue(forKey: request) {
            hold.release()
            byConnection[ConnectionKey(request)] = byConnection[ConnectionKey(request)] ?? request
        }
        if let task = tasks[request] { return task }
        byConnection[ConnectionKey(request)] = byConnection[ConnectionKey(request)] ?? request
        let prober = self.prober
        // Detached: a Task made inside the actor would inherit its isolation and hold the actor,
        // which holds the task: a cycle that outlived every run (LeakSanitizer, docs/robustness.md).
        // On the engine's threads from its first step (a detached task inherits no preference).
        let task = prober.runtime.detachedOnEngine { await prober.probe(request) }
        tasks[request] = task
        return task
    }
}

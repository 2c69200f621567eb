import ATSEngine
import ATSPolicy
import ATSProbe
import ATSReport
import ATSTrust
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport
import TLSFacts

/// What serve needs from the program it runs in: the probe runtime (the command line's, with its
/// watchdog) and the run metadata every JSON document carries (the binary's version, its OpenSSL),
/// made as `diagnose` makes it.
package struct ServeEnvironment: Sendable {
    package var runtime: ProbeRuntime
    /// `RunInfo(context:ruleSet:)` as the command line builds it.
    package var runInfo: @Sendable (RunContext, String) -> RunInfo

    package init(runtime: ProbeRuntime, runInfo: @escaping @Sendable (RunContext, String) -> RunInfo) {
        self.runtime = runtime
        self.runInfo = runInfo
    }
}

/// A (target, module) pair: the unit of caching and of sharing one probe between scrapes.
struct ProbeKey: Hashable, Sendable {
    let target: String
    let module: String
}

/// One finished probe of a target under a module.
struct ProbeOutcome: Sendable {
    enum Result: Sendable {
        /// The target's diagnostics, as `diagnose --json` writes them.
        case judged(DiagnosticsJSON)
        /// The run could not start (an anchor file gone since start-up, say): one line.
        case failed(String)
    }

    let key: ProbeKey
    let result: Result
    let startedAt: Date
    let durationSeconds: Double

    var document: DiagnosticsJSON? {
        if case .judged(let document) = result { return document }
        return nil
    }
}

/// Every probe serve makes, in one place: results kept per (target, module) for the cache TTL,
/// one probe per key at a time however many scrapes ask (single flight), at most
/// `max_in_flight` probes at once, each scrape waiting only as long as it may, and a history of
/// what was probed for the `/` page. Each probe is nscurl's diagnostics through the one way the
/// command line runs them: a `RunContext` made for that probe (its own instant), a `Prober` with
/// the allow list as its connection admission, and `DiagnosticsRunner`.
actor ProbeHub {
    struct Settings: Sendable {
        var cacheTTLSeconds: Int
        var maxInFlight: Int
        var allow: AllowList
        var modules: [String: ServeConfiguration.Module]

        init(_ configuration: ServeConfiguration) {
            cacheTTLSeconds = configuration.cacheTTLSeconds
            maxInFlight = configuration.maxInFlight
            allow = configuration.allow
            modules = configuration.modules
        }
    }

    /// How a scrape's wait ended.
    enum Lookup: Sendable {
        case cached(ProbeOutcome)
        case probed(ProbeOutcome)
        /// The scrape's own time ran out first; the probe goes on and fills the cache.
        case timedOut
        /// serve is shutting down and starts no probe.
        case draining
    }

    private(set) var settings: Settings
    private let environment: ServeEnvironment
    private let metrics: ServeMetrics
    private var done: [ProbeKey: (outcome: ProbeOutcome, expires: ContinuousClock.Instant)] = [:]
    private var waiting: [ProbeKey: [Int: CheckedContinuation<ProbeOutcome?, Never>]] = [:]
    private var timers: [Int: Task<Void, Never>] = [:]
    private var nextWaiter = 0
    private var slotsInUse = 0
    private var slotQueue: [CheckedContinuation<Void, Never>] = []
    private(set) var draining = false
    /// Newest last; at most `historyLimit` keys, each as the `/` page shows it (not the whole
    /// document: memory stays flat however many targets are probed).
    private var history: [ProbeKey: IndexPage.Entry] = [:]
    private var historyOrder: [ProbeKey] = []
    static let historyLimit = 1_000
    /// Results kept at most; expired ones are swept whenever the cache has doubled since the last sweep.
    static let cacheLimit = 5_000
    private var sweepAt = 256

    init(settings: Settings, environment: ServeEnvironment, metrics: ServeMetrics) {
        self.settings = settings
        self.environment = environment
        self.metrics = metrics
    }

    /// A reloaded config: new modules, allow list and limits; every cached result dropped (its
    /// module may have changed). Probes in flight finish under the config they started with.
    func reload(_ newSettings: Settings) {
        settings = newSettings
        done.removeAll()
        while slotsInUse < settings.maxInFlight, !slotQueue.isEmpty {
            slotsInUse += 1
            slotQueue.removeFirst().resume()
        }
    }

    /// The result for `key`: cached, or from the probe in flight for it, or a new probe; waits at
    /// most `wait` seconds.
    func outcome(for key: ProbeKey, target: Target, module: ServeConfiguration.Module, wait: Double) async -> Lookup {
        let now = ContinuousClock.now
        if let entry = done[key] {
            if entry.expires > now {
                metrics.cacheHits.increment()
                return .cached(entry.outcome)
            }
            done[key] = nil
        }
        guard !draining else { return .draining }
        if waiting[key] == nil {
            waiting[key] = [:]
            start(key, target: target, module: module)
        }
        nextWaiter += 1
        let id = nextWaiter
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<ProbeOutcome?, Never>) in
            waiting[key, default: [:]][id] = continuation
            timers[id] = Task { [weak self] in
                try? await Task.sleep(for: .milliseconds(Int(max(0.05, wait) * 1000)))
                guard !Task.isCancelled else { return }
                await self?.expire(key, id)
            }
        }
        return outcome.map(Lookup.probed) ?? .timedOut
    }

    private func expire(_ key: ProbeKey, _ id: Int) {
        timers[id] = nil
        waiting[key]?.removeValue(forKey: id)?.resume(returning: nil)
    }

    private func start(_ key: ProbeKey, target: Target, module: ServeConfiguration.Module) {
        let environment = self.environment, allow = settings.allow, metrics = self.metrics
        metrics.probes(module: key.module).increment()
        Task {
            await self.acquireSlot()
            metrics.inFlight.increment()
            let outcome = await ProbeHub.probe(key, target: target, module: module, allow: allow, environment: environment)
            metrics.inFlight.decrement()
            metrics.probeDuration.record(.milliseconds(Int64(outcome.durationSeconds * 1000)))
            await self.finish(key, outcome)
        }
    }

    private func acquireSlot() async {
        if slotsInUse < settings.maxInFlight {
            slotsInUse += 1
            return
        }
        await withCheckedContinuation { slotQueue.append($0) }
    }

    private func finish(_ key: ProbeKey, _ outcome: ProbeOutcome) {
        // The slot passes to the next probe waiting, if any.
        if !slotQueue.isEmpty, slotsInUse <= settings.maxInFlight {
            slotQueue.removeFirst().resume()
        } else {
            slotsInUse -= 1
        }
        if done.count >= sweepAt {
            let now = ContinuousClock.now
            done = done.filter { $0.value.expires > now }
            // Still full of live entries: the oldest-expiring half goes.
            if done.count >= Self.cacheLimit {
                let keep = done.sorted { $0.value.expires > $1.value.expires }.prefix(Self.cacheLimit / 2)
                done = Dictionary(uniqueKeysWithValues: keep.map { ($0.key, $0.value) })
            }
            sweepAt = max(256, done.count * 2)
        }
        done[key] = (outcome, ContinuousClock.now.advanced(by: .seconds(settings.cacheTTLSeconds)))
        if history.updateValue(IndexPage.Entry(outcome), forKey: key) != nil { historyOrder.removeAll { $0 == key } }
        historyOrder.append(key)
        if historyOrder.count > Self.historyLimit { history[historyOrder.removeFirst()] = nil }
        for (id, continuation) in waiting.removeValue(forKey: key) ?? [:] {
            timers.removeValue(forKey: id)?.cancel()
            continuation.resume(returning: outcome)
        }
    }

    /// What was probed, newest first (the `/` page).
    func recent() -> [IndexPage.Entry] {
        historyOrder.reversed().compactMap { history[$0] }
    }

    /// Probes in flight or waiting for a slot.
    var busy: Int { waiting.count }

    /// Shutting down: no new probe starts; scrapes already waiting get their answer or their timeout.
    func beginDraining() { draining = true }

    /// nscurl's diagnostics for one target, as `diagnose --json` runs them: a context of its own
    /// (the instant is the probe's), the allow list on every connection, DiagnosticsRunner.
    nonisolated static func probe(_ key: ProbeKey, target: Target, module: ServeConfiguration.Module, allow: AllowList,
                                  environment: ServeEnvironment) async -> ProbeOutcome {
        let startedAt = Date()
        let clock = ContinuousClock.now
        func seconds() -> Double {
            let elapsed = ContinuousClock.now - clock
            return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        }
        do {
            let context = try RunContext(ruleSet: module.ruleSet, trust: RunContext.Trust(anchors: AnchorConfiguration(caFile: module.caFile)),
                                         resolution: RunContext.Resolution(dnsServers: module.dnsServers, connectTo: module.connectTo),
                                         timeout: module.timeoutSeconds, forecastHorizonSeconds: module.forecastSeconds,
                                         runtime: environment.runtime)
            let run = try Run(context: context, admission: ConnectionAdmission(host: { allow.refusal(host: $0) },
                                                                               address: { allow.refusal(host: $0, address: $1) }))
            let report = await run.runner.run(target)
            let document = DiagnosticsJSON(report, run: environment.runInfo(context, module.ruleSet.id))
            return ProbeOutcome(key: key, result: .judged(document), startedAt: startedAt, durationSeconds: seconds())
        } catch {
            return ProbeOutcome(key: key, result: .failed(UntrustedText.escape(String(describing: error), limit: 300)),
                                startedAt: startedAt, durationSeconds: seconds())
        }
    }
}

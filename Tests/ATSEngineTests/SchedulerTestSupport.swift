import Dispatch
import Synchronization
@testable import ATSEngine
import TLSFacts

/// A clock that moves only when the test says so. Sleepers wait, suspended, until `advance`
/// passes their deadline (or their task is cancelled); the test can wait, suspended too, until
/// the code under test has gone to sleep, so no test sleeps to synchronise.
final class ManualClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        let id: Int
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct Watcher {
        let predicate: @Sendable ([Instant]) -> Bool
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID = 0
        var sleepers: [Sleeper] = []
        var cancelledBeforeSleeping: Set<Int> = []
        var watchers: [Watcher] = []
        /// Every deadline anyone slept until, in order (for assertions).
        var requested: [Instant] = []

        /// Watchers whose condition now holds, removed.
        mutating func satisfiedWatchers() -> [Watcher] {
            let deadlines = sleepers.map(\.deadline)
            let ready = watchers.filter { $0.predicate(deadlines) }
            watchers.removeAll { watcher in watcher.predicate(deadlines) }
            return ready
        }
    }

    private let state = Mutex(State())

    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .zero }
    var requestedDeadlines: [Instant] { state.withLock { $0.requested } }

    static func at(_ duration: Duration) -> Instant { Instant(offset: duration) }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case now, cancelled, waiting([Watcher]) }
                let outcome = state.withLock { state -> Outcome in
                    state.requested.append(deadline)
                    if state.cancelledBeforeSleeping.remove(id) != nil { return .cancelled }
                    if deadline <= state.now { return .now }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return .waiting(state.satisfiedWatchers())
                }
                switch outcome {
                case .now: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .waiting(let watchers): for watcher in watchers { watcher.continuation.resume() }
                }
            }
        } onCancel: {
            // A cancelled sleeper leaves the list, and a watcher waiting for fewer sleepers
            // (a deadline cancelled because its work finished) is woken by that.
            let (sleeper, watchers) = state.withLock { state -> (Sleeper?, [Watcher]) in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
                    state.cancelledBeforeSleeping.insert(id)
                    return (nil, [])
                }
                let sleeper = state.sleepers.remove(at: index)
                return (sleeper, state.satisfiedWatchers())
            }
            sleeper?.continuation.resume(throwing: CancellationError())
            for watcher in watchers { watcher.continuation.resume() }
        }
    }

    /// Moves the time on and wakes every sleeper whose deadline it reaches.
    func advance(by duration: Duration) {
        let woken = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }

    /// Returns once the deadlines of the tasks asleep now satisfy `predicate`.
    func waitForSleepers(_ predicate: @escaping @Sendable ([Instant]) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let holds = state.withLock { state -> Bool in
                if predicate(state.sleepers.map(\.deadline)) { return true }
                state.watchers.append(Watcher(predicate: predicate, continuation: continuation))
                return false
            }
            if holds { continuation.resume() }
        }
    }
}

/// A fake per-target run: no sockets. Each run waits until the test finishes it (`finish`), or
/// returns at once (`immediate`); it counts what is in flight, in all and per host, and notes
/// cancellation, so a test can prove the scheduler's limits.
final class FakeWork: AuditWork, Sendable {
    struct Report: Sendable, Equatable {
        let url: String
        let run: Int
        var local = false
        var cancelled = false
    }

    struct Snapshot: Sendable {
        var inFlight = 0
        var peak = 0
        var inFlightByHost: [String: Int] = [:]
        var peakByHost: [String: Int] = [:]
        /// URLs in the order their runs started (a URL run again appears again).
        var started: [String] = []
        var startInstants: [String: ManualClock.Instant] = [:]
        var cancelled: [String] = []
        var runs: [String: Int] = [:]
        var running: [String] { Array(waiting.keys) }
        fileprivate var waiting: [String: CheckedContinuation<Report, Never>] = [:]
    }

    private struct Watcher {
        let predicate: @Sendable (Snapshot) -> Bool
        let continuation: CheckedContinuation<Void, Never>
    }

    private let state = Mutex((snapshot: Snapshot(), watchers: [Watcher]()))
    private let immediate: Bool
    private let clock: ManualClock?
    /// How many runs of a URL fail on "this machine" before one succeeds (Int.max: always).
    private let localFailures: [String: Int]

    init(immediate: Bool = false, clock: ManualClock? = nil, localFailures: [String: Int] = [:]) {
        self.immediate = immediate
        self.clock = clock
        self.localFailures = localFailures
    }

    var snapshot: Snapshot { state.withLock { $0.snapshot } }

    /// What `stalledSeconds` says: the test adds to it to play a stop of the process.
    let stalled = Mutex(0.0)
    var stalledSeconds: Double { stalled.withLock { $0 } }

    func audit(_ target: Target) async -> Report {
        let url = target.url
        let host = target.host
        let run = change { snapshot in
            snapshot.inFlight += 1
            snapshot.peak = max(snapshot.peak, snapshot.inFlight)
            snapshot.inFlightByHost[host, default: 0] += 1
            snapshot.peakByHost[host] = max(snapshot.peakByHost[host, default: 0], snapshot.inFlightByHost[host]!)
            snapshot.started.append(url)
            if let clock { snapshot.startInstants[url] = clock.now }
            snapshot.runs[url, default: 0] += 1
            return snapshot.runs[url]!
        }
        defer {
            change { snapshot in
                snapshot.inFlight -= 1
                snapshot.inFlightByHost[host]! -= 1
            }
        }
        let local = run <= localFailures[url, default: 0]
        if immediate || local { return Report(url: url, run: run, local: local) }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Report, Never>) in
                let cancelled = change { snapshot -> Bool in
                    if Task.isCancelled {
                        snapshot.cancelled.append(url)
                        return true
                    }
                    snapshot.waiting[url] = continuation
                    return false
                }
                if cancelled { continuation.resume(returning: Report(url: url, run: run, cancelled: true)) }
            }
        } onCancel: {
            let waiting = change { snapshot -> CheckedContinuation<Report, Never>? in
                guard let waiting = snapshot.waiting.removeValue(forKey: url) else { return nil }
                snapshot.cancelled.append(url)
                return waiting
            }
            waiting?.resume(returning: Report(url: url, run: run, cancelled: true))
        }
    }

    func localFailure(of report: Report) -> ProbeFailure? {
        report.local ? ProbeFailure(kind: .localResources, detail: "fake: out of descriptors") : nil
    }

    /// The fake has no engine to wait for.
    func admitted() async -> Bool { true }

    /// Ends the run of `url` waiting now; false if none is.
    @discardableResult
    func finish(_ url: String) -> Bool {
        let waiting = change { snapshot in snapshot.waiting.removeValue(forKey: url) }
        let runs = snapshot.runs[url, default: 0]
        waiting?.resume(returning: Report(url: url, run: runs))
        return waiting != nil
    }

    /// True once `predicate` holds; false when it has not within `seconds` (a bound for a
    /// condition the code under test may never reach, not a synchronisation).
    func waitUntil(within seconds: Double, _ predicate: @escaping @Sendable (Snapshot) -> Bool) async -> Bool {
        final class Pending: Sendable {
            let slot = Mutex<CheckedContinuation<Bool, Never>?>(nil)
            func resume(_ value: Bool) { slot.withLock { $0.take() }?.resume(returning: value) }
        }
        let pending = Pending()
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            pending.slot.withLock { $0 = continuation }
            Task {
                await self.waitUntil(predicate)
                pending.resume(true)
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { pending.resume(false) }
        }
    }

    /// Returns once `predicate` holds.
    func waitUntil(_ predicate: @escaping @Sendable (Snapshot) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let holds = state.withLock { state -> Bool in
                if predicate(state.snapshot) { return true }
                state.watchers.append(Watcher(predicate: predicate, continuation: continuation))
                return false
            }
            if holds { continuation.resume() }
        }
    }

    /// Changes the snapshot and wakes the watchers whose condition now holds.
    @discardableResult
    private func change<Value>(_ body: (inout Snapshot) -> Value) -> Value {
        let (value, ready) = state.withLock { state -> (Value, [Watcher]) in
            let value = body(&state.snapshot)
            let snapshot = state.snapshot
            let ready = state.watchers.filter { $0.predicate(snapshot) }
            state.watchers.removeAll { $0.predicate(snapshot) }
            return (value, ready)
        }
        for watcher in ready { watcher.continuation.resume() }
        return value
    }
}

/// Jobs from a list, as the scheduler reads them.
func jobs(_ targets: [Target], rejected: [(position: Int, reason: String)] = []) -> AsyncStream<AuditJob<String>> {
    AsyncStream { continuation in
        for target in targets { continuation.yield(.target(target, tag: target.url)) }
        for line in rejected { continuation.yield(.rejected(line.reason, shardKey: "#\(line.position)", tag: "#\(line.position)")) }
        continuation.finish()
    }
}

/// The events of a run as the consumer sees them, which a test can wait on: finishing two runs
/// back to back races their results to the stream, so a test that asserts an order waits for
/// each result before it finishes the next run.
final class EventLog<Report: Sendable>: Sendable {
    private struct Watcher {
        let predicate: @Sendable ([AuditEvent<String, Report>]) -> Bool
        let continuation: CheckedContinuation<Void, Never>
    }

    private final class Storage: Sendable {
        let state = Mutex((events: [AuditEvent<String, Report>](), watchers: [Watcher]()))
    }

    private let storage = Storage()
    private let consumer: Task<Void, Never>

    init(_ results: AuditResults<AuditEvent<String, Report>>) {
        let storage = self.storage
        consumer = Task {
            for await event in results {
                let ready = storage.state.withLock { state -> [Watcher] in
                    state.events.append(event)
                    let events = state.events
                    let ready = state.watchers.filter { $0.predicate(events) }
                    state.watchers.removeAll { $0.predicate(events) }
                    return ready
                }
                for watcher in ready { watcher.continuation.resume() }
            }
        }
    }

    /// Returns once the events seen so far satisfy `predicate`.
    func waitUntil(_ predicate: @escaping @Sendable ([AuditEvent<String, Report>]) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let holds = storage.state.withLock { state -> Bool in
                if predicate(state.events) { return true }
                state.watchers.append(Watcher(predicate: predicate, continuation: continuation))
                return false
            }
            if holds { continuation.resume() }
        }
    }

    /// The events seen so far.
    var seen: [AuditEvent<String, Report>] { storage.state.withLock { $0.events } }

    /// Every event, once the run has ended.
    var all: [AuditEvent<String, Report>] {
        get async {
            await consumer.value
            return storage.state.withLock { $0.events }
        }
    }
}

/// The events `AuditScheduler.run(_:onEvent:)` reports, from the targets' own tasks.
final class EventRecorder<Report: Sendable>: Sendable {
    private let events = Mutex<[AuditEvent<String, Report>]>([])

    func record(_ event: AuditEvent<String, Report>) { events.withLock { $0.append(event) } }

    var all: [AuditEvent<String, Report>] { events.withLock { $0 } }
}

/// Every event of a run, in the order the consumer saw them.
func collect<Report: Sendable>(_ results: AuditResults<AuditEvent<String, Report>>) -> Task<[AuditEvent<String, Report>], Never> {
    Task {
        var events: [AuditEvent<String, Report>] = []
        for await event in results { events.append(event) }
        return events
    }
}

extension AuditEvent {
    var kind: String {
        switch self {
        case .started: "started"
        case .finished: "finished"
        case .timedOut: "timedOut"
        case .failedLocally: "failedLocally"
        case .rejected: "rejected"
        }
    }
}

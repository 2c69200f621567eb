#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ATSProbe
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import TLSFacts

/// Targets waiting for their host's --per-host slot, in input order, and the count in flight
/// per host. A host is forgotten when it has nothing in flight, so memory stays flat.
struct AuditParking {
    struct Item {
        let entry: AuditEntry
        let target: Target
        /// The per-host key: the --connect-to address when given, else the host.
        let host: String
    }

    let perHost: Int
    let capacity: Int
    private var waiting: [Item] = []
    private var running: [String: Int] = [:]

    init(perHost: Int, capacity: Int) {
        self.perHost = perHost
        self.capacity = capacity
    }

    var isFull: Bool { waiting.count >= capacity }

    mutating func add(_ item: Item) { waiting.append(item) }

    /// The first waiting target whose host has a free slot, counted as running; nil if none.
    mutating func nextReady() -> Item? {
        guard let index = waiting.firstIndex(where: { running[$0.host, default: 0] < perHost }) else { return nil }
        let item = waiting.remove(at: index)
        running[item.host, default: 0] += 1
        return item
    }

    mutating func finished(_ host: String) {
        let count = running[host, default: 1] - 1
        running[host] = count > 0 ? count : nil
    }
}

enum AuditLimits {
    /// Runs of one target after this machine ran out of resources, before it is reported (exit 70).
    static let localRetries = 3
    /// Probes one target runs at once, about: its distinct first-hop offers start together.
    static let probesPerTarget = 4

    /// --concurrency, capped by what the open-file limit (`ulimit -n`) allows, with a warning
    /// when it is cut. Past the cap targets would only queue for sockets (DescriptorBudget)
    /// while their --deadline runs.
    static func concurrencyAllowed(asked: Int, budget: DescriptorBudget = .shared) -> Int {
        let allowed = max(1, budget.slots / probesPerTarget)
        guard asked > allowed else { return asked }
        Diagnostics.warn("--concurrency \(asked) needs more open files than the limit allows (ulimit -n); using \(allowed)")
        return allowed
    }
}

/// `--rate N`: target starts spaced 1/N seconds apart.
struct AuditRateLimiter {
    private let interval: Duration?
    private var next: ContinuousClock.Instant = .now

    init(perSecond rate: Double?) {
        // checkOptions bounds the rate to 0.001...100000; clamp anyway so no value can trap.
        interval = rate.map { .nanoseconds(Int64(min(max(1e9 / $0, 0), 1e15))) }
    }

    mutating func wait() async {
        guard let interval else { return }
        let now = ContinuousClock.now
        if next > now { try? await Task.sleep(until: next, clock: .continuous) }
        next = max(next, now) + interval
    }
}

/// Runs `operation` and returns its value, or nil once `seconds` pass first. Structured: at the
/// deadline the operation's task is cancelled, and the probe engine ends its handshakes at once
/// (sockets closed, handshake slots freed), so a timed-out target never keeps working beside the
/// one that takes its --concurrency slot.
func withDeadline<Value: Sendable>(seconds: Double, _ operation: @escaping @Sendable () async -> Value) async -> Value? {
    await withTaskGroup(of: Value?.self) { group in
        group.addTask { await operation() }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

/// SIGINT and SIGTERM during an audit: handled on a dispatch queue (not in a signal handler,
/// where almost nothing is safe), then passed to the output actor, which ends the run between
/// two records with the documented exit code (130, 143; docs/exit-codes.md).
final class AuditInterrupts: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []

    init(sink: AuditOutput) {
        for (number, name, status) in [(SIGINT, "SIGINT", ExitStatus.interrupted), (SIGTERM, "SIGTERM", .terminated)] {
            signal(number, SIG_IGN)  // the dispatch source sees it; the default action would not let it
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { Task { await sink.interrupt(signalName: name, status: status) } }
            source.resume()
            sources.append(source)
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}

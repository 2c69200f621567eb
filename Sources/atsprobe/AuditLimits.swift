#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ATSProbe
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

/// `--rate N`: target starts spaced 1/N seconds apart.
struct AuditRateLimiter {
    private let interval: Duration?
    private var next: ContinuousClock.Instant = .now

    init(perSecond rate: Double?) {
        interval = rate.map { .nanoseconds(Int64(1e9 / $0)) }
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

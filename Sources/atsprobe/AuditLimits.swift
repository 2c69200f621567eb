#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ATSProbe
import Dispatch

/// At most `limit` targets of one host in flight; the rest wait their turn, first come first served.
actor AuditHostGate {
    private let limit: Int
    private var running: [String: Int] = [:]
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]

    init(limit: Int) { self.limit = limit }

    func acquire(_ host: String) async {
        if running[host, default: 0] < limit {
            running[host, default: 0] += 1
            return
        }
        await withCheckedContinuation { waiting[host, default: []].append($0) }
    }

    /// Hands the slot straight to the next waiter, or frees it; forgets idle hosts so memory stays flat.
    func release(_ host: String) {
        if var queue = waiting[host], !queue.isEmpty {
            let next = queue.removeFirst()
            waiting[host] = queue.isEmpty ? nil : queue
            next.resume()
            return
        }
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

/// Runs `operation` and returns its value, or nil once `seconds` pass first. The operation is
/// not awaited past the deadline: its connections end by themselves within --timeout.
func withDeadline<Value: Sendable>(seconds: Double, _ operation: @escaping @Sendable () async -> Value) async -> Value? {
    await withCheckedContinuation { continuation in
        let once = ResumeOnce(continuation)
        let timer = DispatchWorkItem { once.resume(nil) }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: timer)
        Task {
            let value = await operation()
            timer.cancel()
            once.resume(value)
        }
    }
}

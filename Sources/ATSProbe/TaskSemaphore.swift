import DequeModule
import Synchronization

/// A counting semaphore for tasks: at most `limit` holders at once, the rest wait first come
/// first served, suspended (no thread held). A waiter whose task is cancelled leaves the queue at
/// once, holding nothing. Two uses: the handshakes in flight across everything one `Prober` does
/// (`ProbeOptions.maxHandshakesInFlight`), and the runtime's sockets (`DescriptorBudget`).
final class TaskSemaphore: Sendable {
    private struct State {
        var available: Int
        var nextID: UInt64 = 0
        var waiters = Deque<(id: UInt64, continuation: CheckedContinuation<Bool, Never>)>()
        var inFlight = 0
        var peak = 0
    }

    private let state: Mutex<State>
    let limit: Int

    init(limit: Int) {
        self.limit = max(1, limit)
        state = Mutex(State(available: max(1, limit)))
    }

    /// Holders now, and the most there ever were (tests, benchmarks).
    var inFlight: Int { state.withLock { $0.inFlight } }
    var peakInFlight: Int { state.withLock { $0.peak } }
    /// Tasks waiting for a slot now (tests).
    var waiting: Int { state.withLock { $0.waiters.count } }

    /// Runs `body` holding one slot. Returns nil, without running it, when the task is cancelled
    /// while waiting for a slot.
    func withSlot<Value: Sendable>(_ body: () async -> Value) async -> Value? {
        guard await acquire() else { return nil }
        defer { release() }
        return await body()
    }

    /// Waits for a slot; pair with `release()`. False, holding nothing, when the task is
    /// cancelled while waiting.
    func acquire() async -> Bool {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let granted = state.withLock { state -> Bool? in
                    if state.available > 0 {
                        state.available -= 1
                        state.inFlight += 1
                        state.peak = max(state.peak, state.inFlight)
                        return true
                    }
                    // Checked under the lock: a cancellation sets the flag before its handler
                    // takes the lock, so either this sees the flag or the handler sees the waiter.
                    // (Checked outside, a task cancelled just before queueing waited for a slot.)
                    if Task.isCancelled { return false }
                    state.waiters.append((id, continuation))
                    return nil
                }
                if let granted { continuation.resume(returning: granted) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(returning: false)
        }
    }

    func release() {
        let next = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard let next = state.waiters.popFirst() else {
                state.available += 1
                state.inFlight -= 1
                return nil
            }
            return next.continuation  // the slot passes straight on
        }
        next?.resume(returning: true)
    }
}

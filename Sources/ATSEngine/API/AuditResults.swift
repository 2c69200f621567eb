import Synchronization

/// The scheduler's events as an `AsyncSequence` (one consumer). Dropping the sequence and its
/// iterator, or cancelling the task that iterates, ends the run.
public struct AuditResults<Element: Sendable>: AsyncSequence, Sendable {
    public typealias Failure = Never
    private let owner: Owner

    init(channel: AuditHandoff<Element>) { owner = Owner(channel: channel) }

    public struct AsyncIterator: AsyncIteratorProtocol {
        public typealias Failure = Never
        let owner: Owner
        public mutating func next() async -> Element? { await owner.channel.next() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(owner: owner) }

    /// Ends the run now (a signal, a caller giving up): targets in flight are cancelled, the
    /// input is read no further, and the iteration ends; events not yet taken are dropped.
    public func cancel() { owner.channel.close() }

    /// Returns once the run has ended: every target's task has returned, after the last event
    /// or after `cancel()`. What a caller awaits before it shuts the probe runtime down.
    public func ended() async { await owner.channel.producerEnded() }

    /// Closes the channel when the last copy of the sequence or an iterator goes.
    final class Owner: Sendable {
        let channel: AuditHandoff<Element>
        init(channel: AuditHandoff<Element>) { self.channel = channel }
        deinit { channel.close() }
    }
}

/// A rendezvous between many producers and one consumer: `send` returns once the consumer has
/// taken the element (or has gone). No buffer, so nothing piles up behind a slow consumer.
final class AuditHandoff<Element: Sendable>: Sendable {
    private struct State {
        var senders: [(element: Element, taken: CheckedContinuation<Void, Never>)] = []
        var reader: CheckedContinuation<Element?, Never>?
        /// The producer finished: the consumer gets nil once the senders are drained.
        var finished = false
        /// The consumer went: sends return at once, the producer is cancelled.
        var closed = false
        var producer: Task<Void, Never>?
    }

    private let state = Mutex(State())

    /// What `next` does after looking at the state.
    private enum Step {
        case take(Element, CheckedContinuation<Void, Never>)
        case end
        case wait
    }

    /// Starts the producer (on `executor`, when given); the channel finishes when it returns.
    func start(on executor: (any TaskExecutor)? = nil, _ body: @escaping @Sendable () async -> Void) {
        let task = Task(executorPreference: executor) {
            await body()
            self.finish()
        }
        let closed = state.withLock { state -> Bool in
            state.producer = task
            return state.closed
        }
        if closed { task.cancel() }
    }

    func send(_ element: Element) async {
        await withCheckedContinuation { (taken: CheckedContinuation<Void, Never>) in
            let reader = state.withLock { state -> CheckedContinuation<Element?, Never>?? in
                if state.closed { return .some(nil) }
                if let reader = state.reader {
                    state.reader = nil
                    return .some(reader)
                }
                state.senders.append((element, taken))
                return .none
            }
            switch reader {
            case .none: break  // waits for the consumer
            case .some(nil): taken.resume()
            case .some(let reader?):
                reader.resume(returning: element)
                taken.resume()
            }
        }
    }

    func next() async -> Element? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (reader: CheckedContinuation<Element?, Never>) in
                let step = state.withLock { state -> Step in
                    if !state.senders.isEmpty {
                        let sender = state.senders.removeFirst()
                        return .take(sender.element, sender.taken)
                    }
                    if state.finished || state.closed { return .end }
                    state.reader = reader
                    return .wait
                }
                switch step {
                case .take(let element, let taken):
                    taken.resume()
                    reader.resume(returning: element)
                case .end: reader.resume(returning: nil)
                case .wait: break
                }
            }
        } onCancel: {
            close()
        }
    }

    private func finish() {
        let reader = state.withLock { state -> CheckedContinuation<Element?, Never>? in
            state.finished = true
            // Every send has returned by now (each waits to be taken), so a waiting reader has nothing to take.
            defer { state.reader = nil }
            return state.reader
        }
        reader?.resume(returning: nil)
    }

    /// Returns when the producer has returned.
    func producerEnded() async {
        await state.withLock { $0.producer }?.value
    }

    /// The consumer is gone: senders are released, the producer cancelled.
    func close() {
        let (senders, reader, producer) = state.withLock { state in
            state.closed = true
            defer {
                state.senders = []
                state.reader = nil
            }
            return (state.senders, state.reader, state.producer)
        }
        for sender in senders { sender.taken.resume() }
        reader?.resume(returning: nil)
        producer?.cancel()
    }
}

/// The system calls under a `Reactor`: a readiness queue (Linux's epoll, the BSDs' kqueue) and a
/// way to wake its waiting thread. As swift-nio's `SelectorGeneric` sits over `SelectorEpoll` and
/// `SelectorKqueue`, the `Reactor` (waiters, deadlines, watches, cancellation) is written once
/// over this protocol, and another platform is one new file implementing it (docs/design.md,
/// "Platforms"). Only `EpollReactorBackend` exists; only Linux is built and tested.
///
/// Registrations are named by a non-zero id the reactor chooses (0 is the backend's own wake-up);
/// `wait` hands each ready id back with what it is ready for.
protocol ReactorBackend: Sendable {
    /// Opens the queue and the wake-up. A failure here is the machine's (descriptors exhausted):
    /// the runtime cannot start.
    init() throws(ReactorBackendError)

    /// Registers `descriptor` for ONE readiness event of `interest` (then it is disarmed: the
    /// reactor removes it with `remove`). Registering a descriptor already in the queue
    /// re-arms it under the new id. False when the descriptor cannot be polled.
    func armOnce(_ descriptor: Int32, id: UInt64, for interest: ReactorInterest) -> Bool

    /// Registers `descriptor` until `remove`, level-triggered: reported on every `wait` while it
    /// is ready for `readable`/`writable`. False when the descriptor cannot be polled.
    func watch(_ descriptor: Int32, id: UInt64, readable: Bool, writable: Bool) -> Bool

    /// Changes what a `watch` registration waits for.
    func rewatch(_ descriptor: Int32, id: UInt64, readable: Bool, writable: Bool)

    /// Takes `descriptor` out of the queue (before its owner closes it).
    func remove(_ descriptor: Int32)

    /// Blocks until a registration is ready, `wake()` is called, or `milliseconds` pass (-1:
    /// no limit); calls `ready` for each ready registration (the wake-up is consumed here, never
    /// reported). Runs on the reactor's one thread.
    func wait(milliseconds: Int32, _ ready: (_ id: UInt64, _ readiness: ReactorReadiness) -> Void)

    /// Makes a `wait` in progress (or the next one) return at once; from any thread.
    func wake()

    /// Closes the queue and the wake-up; only once the reactor's thread has returned.
    func close()
}

/// What a one-shot wait is for.
enum ReactorInterest: Sendable {
    case readable
    case writable
}

/// What a registration was found ready for. Errors and hang-ups count as readable (the next I/O
/// call reports them).
struct ReactorReadiness: Sendable {
    var readable: Bool
    var writable: Bool
}

/// The backend could not open its queue or wake-up (errno).
struct ReactorBackendError: Error, Sendable {
    let call: String
    let errno: Int32
}

/// The backend of this platform.
#if os(Linux)
typealias PlatformReactorBackend = EpollReactorBackend
#endif

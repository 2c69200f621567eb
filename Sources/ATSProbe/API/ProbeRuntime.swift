#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// What probes run on: the executor's threads (the CPU work between waits, `EngineExecutor`),
/// which also poll the reactor among them (every socket wait, `Reactor`: leader/followers, no
/// thread of its own), the name resolver (`Resolver`: c-ares on the reactor, no thread of its own)
/// and the descriptor budget (`DescriptorBudget`). A `Prober` is made on one runtime; several
/// Probers may share one.
///
/// As swift-nio does with `MultiThreadedEventLoopGroup.singleton`, there is a process-wide
/// runtime, `ProbeRuntime.shared`, started on first use and never shut down: a `Prober` made
/// without naming a runtime uses it. An embedding tool that wants its threads back makes its own,
/// and calls `shutdown()` when done: that ends every probe still in flight (as cancelled), stops
/// the threads and returns once they are gone.
///
/// The runtime does not change the process's open-file limit unless asked
/// (`Configuration.raisesOpenFileLimit`).
public final class ProbeRuntime: Sendable {
    public struct Configuration: Sendable {
        /// Threads running probes between their waits; default one per core (at least 2).
        public var engineThreads: Int
        /// Probes holding sockets at once; nil: as many as the open-file limit allows
        /// (`DescriptorBudget.slotsAllowedByLimit`).
        public var descriptorSlots: Int?
        /// Raise the soft open-file limit to the hard one before sizing the budget.
        public var raisesOpenFileLimit: Bool
        /// The threads' name prefix, as `/proc/self/task/*/comm` and debuggers show it
        /// ("atsprobe-exec"; Linux keeps 15 bytes; the reactor and c-ares have no thread of their own).
        public var threadNamePrefix: String

        public init(engineThreads: Int = max(2, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))),
                    descriptorSlots: Int? = nil, raisesOpenFileLimit: Bool = false, threadNamePrefix: String = "atsprobe") {
            self.engineThreads = engineThreads
            self.descriptorSlots = descriptorSlots
            self.raisesOpenFileLimit = raisesOpenFileLimit
            self.threadNamePrefix = threadNamePrefix
        }
    }

    /// `shutdown()` was refused.
    public enum ShutdownError: Error, Equatable, Sendable, CustomStringConvertible {
        /// `ProbeRuntime.shared` lives as long as the process (others may be using it).
        case sharedRuntime

        public var description: String { "the shared probe runtime cannot be shut down; make a ProbeRuntime of your own" }
    }

    /// The process-wide runtime, started on first use (a global `let` is initialised once, lazily
    /// and thread-safely), never shut down. Throws, on every use, when it could not start (this
    /// machine gave no descriptor or thread then).
    public static var shared: ProbeRuntime {
        get throws(RuntimeStartError) { try sharedProbeRuntime.get() }
    }

    public let configuration: Configuration
    public let descriptorBudget: DescriptorBudget
    let reactor: Reactor
    let executor: EngineExecutor
    /// Names, through c-ares on this runtime's reactor (resolv.conf's servers; a Prober given
    /// --dns-servers makes a Resolver of its own on the same reactor).
    let resolver: Resolver

    private struct State {
        var operations = 0
        var shuttingDown = false
        var stopped = false
        /// `shutdown()` calls waiting for the operations in flight to end.
        var drainWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    /// `ProbeRuntime.shared`, which `shutdown()` refuses (a flag: comparing with the shared
    /// runtime would start it).
    private let isShared: Bool

    /// Starts the threads now (the reactor and `engineThreads`). Throws when this machine gives
    /// no descriptor, memory or thread for them (`ulimit -n`, `ulimit -v`); what was started is
    /// stopped first.
    public convenience init(configuration: Configuration = Configuration()) throws(RuntimeStartError) {
        try self.init(configuration: configuration, shared: false)
    }

    private init(configuration: Configuration, shared: Bool) throws(RuntimeStartError) {
        self.configuration = configuration
        isShared = shared
        let prefix = configuration.threadNamePrefix
        descriptorBudget = DescriptorBudget(
            slots: configuration.descriptorSlots ?? DescriptorBudget.slotsAllowedByLimit(raisingLimit: configuration.raisesOpenFileLimit))
        let reactor = try Reactor()
        let executor: EngineExecutor
        do {
            executor = try EngineExecutor(threads: configuration.engineThreads, name: prefix + "-exec", reactor: reactor)
        } catch {
            reactor.retire(closing: true)
            throw error
        }
        do {
            resolver = try Resolver(reactor: reactor, executor: executor, servers: nil)
        } catch {
            reactor.retire(closing: executor.stop(within: 10))
            throw RuntimeStartError(.resolver, what: "the resolver (\(error.reason))", errno: 0)
        }
        self.reactor = reactor
        self.executor = executor
    }

    /// The shared runtime's start (`shared`).
    fileprivate static func startShared() -> Result<ProbeRuntime, RuntimeStartError> {
        Result { () throws(RuntimeStartError) in try ProbeRuntime(configuration: Configuration(), shared: true) }
    }

    /// Seconds this process was seen not running (stopped, or starved of CPU) since the runtime
    /// started: the reactor's polls that came half a second or more after they were due
    /// (`StallLedger`). A probe that failed while this grew is reported as this machine's
    /// failure, never as the server's (docs/robustness.md, "A stopped or starved run").
    public var stalledSeconds: Double { reactor.stalledSeconds }

    /// True once `shutdown()` has begun: probes made now end at once as cancelled.
    public var isShutDown: Bool { state.withLock { $0.shuttingDown } }

    /// Ends every probe still in flight on this runtime (each reports a `.cancelled` failure;
    /// their sockets close), waits for them to return, then stops the executor's threads (which
    /// poll the reactor) and returns when they are gone. Probes started later end at once as
    /// cancelled. A second call returns once the probes have ended (the first stops the threads).
    /// Do not call it from inside a probe of this runtime (it would wait for itself).
    ///
    /// The resolver's c-ares channel is closed first: its lookups end at once (c-ares runs on
    /// the reactor, so no thread is left inside a lookup).
    public func shutdown() async throws(ShutdownError) {
        guard !isShared else { throw .sharedRuntime }
        let first = state.withLock { state -> Bool in
            defer { state.shuttingDown = true }
            return !state.shuttingDown
        }
        // Every socket wait ends now, and every later one at once: the probes in flight run to
        // their end without the network.
        reactor.cancelAll()
        await withCheckedContinuation { (drained: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.operations == 0 { return true }
                state.drainWaiters.append(drained)
                return false
            }
            if now { drained.resume() }
        }
        guard first else { return }
        // Nothing of ours runs now; the threads are told to stop and joined (bounded: a thread
        // that does not return in time is detached, never waited on for ever). The joins block,
        // so they run on a thread of their own, never on one of Swift's few cooperative threads.
        let (resolver, reactor, executor) = (self.resolver, self.reactor, self.executor)
        await withCheckedContinuation { (joined: CheckedContinuation<Void, Never>) in
            let stop: @Sendable () -> Void = {
                resolver.shutdown()
                // The reactor's descriptors are closed only when no thread can poll them.
                reactor.retire(closing: executor.stop(within: 10))
                joined.resume()
            }
            if let thread = EngineThread.start(name: configuration.threadNamePrefix + "-stop", stop) {
                thread.detach()
            } else {
                stop()
            }
        }
        state.withLock { $0.stopped = true }
    }

    /// Runs `body` as every probe of this runtime runs: counted (so `shutdown()` waits for it),
    /// with this runtime as `ProbeRuntime.current` (the sockets' reactor and resolver), on the
    /// runtime's executor. nil, without running it, once the runtime is shutting down.
    func perform<Value: Sendable>(_ body: @Sendable () async -> Value) async -> Value? {
        guard enter() else { return nil }
        defer { leave() }
        return await ProbeRuntime.$bound.withValue(self) {
            await withTaskExecutorPreference(executor) { await body() }
        }
    }

    /// Runs `body` on this runtime's engine threads: its task executor becomes the task's
    /// preference, which every child task (and default actor it calls) inherits. The CPU work
    /// around a handshake (a test's judgement) then runs on the thread its handshake resumed
    /// on, with no hop to Swift's global pool and back (issue 43).
    package func onEngine<Value>(_ body: () async -> Value) async -> Value {
        await withTaskExecutorPreference(executor, operation: body)
    }

    /// Runs `body` on Swift's global executor, off the engine's threads: for a caller's
    /// callback that may block (a write to a terminal or a pipe), which must never hold a
    /// thread the runtime's sockets need.
    package func offEngine<Value>(_ body: () async -> Value) async -> Value {
        await withTaskExecutorPreference(globalConcurrentExecutor, operation: body)
    }

    /// A detached task that starts on this runtime's engine threads (a detached task inherits
    /// no executor preference: without one it would start on Swift's global pool and hop).
    package func detachedOnEngine<Value: Sendable>(_ body: @escaping @Sendable () async -> Value) -> Task<Value, Never> {
        Task.detached(executorPreference: executor, operation: body)
    }

    /// Waits until this runtime's engine threads keep up (`EngineExecutor.admit()`: the oldest
    /// job queued has waited under 50 ms): an audit starts its next target only then, so the
    /// target's deadline never runs while it waits for this machine. Each probe is admitted
    /// again before its own clock starts. False when the task is cancelled while waiting.
    package func admit() async -> Bool { await executor.admit() }

    /// An unstructured task on this runtime (the caIssuers download several probes await):
    /// counted like a probe; `orElse` when the runtime is already shutting down.
    func task<Value: Sendable>(orElse refused: Value, _ body: @escaping @Sendable () async -> Value) -> Task<Value, Never> {
        guard enter() else { return Task { refused } }
        return Task(executorPreference: executor) { [self] in
            defer { leave() }
            return await ProbeRuntime.$bound.withValue(self) { await body() }
        }
    }

    private func enter() -> Bool {
        state.withLock { state in
            if state.shuttingDown { return false }
            state.operations += 1
            return true
        }
    }

    private func leave() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.operations -= 1
            guard state.operations == 0 else { return [] }
            defer { state.drainWaiters = [] }
            return state.drainWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// The runtime of the probe this task runs in (set by `perform` and `task`); nil outside
    /// one. Sockets and lookups use it, so a probe's I/O stays on its own runtime; the library
    /// never falls back to `shared` (a socket opened outside a runtime is refused, as cancelled).
    @TaskLocal static var bound: ProbeRuntime?
    static var current: ProbeRuntime? { bound }

    /// Runs `body` with this runtime as the task's, uncounted: for tests that drive a socket or
    /// a fetch directly, outside a Prober.
    func binding<Value>(_ body: () async throws -> Value) async rethrows -> Value {
        try await ProbeRuntime.$bound.withValue(self) { try await body() }
    }

    /// Threads of this process whose name starts with `prefix` now, from /proc/self/task (tests,
    /// and an embedder checking that a shut-down runtime left nothing behind).
    public static func threadCount(namedWithPrefix prefix: String) -> Int {
        guard let directory = opendir("/proc/self/task") else { return 0 }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.first?.isNumber == true,
                  let comm = try? BoundedThreadName.read("/proc/self/task/\(name)/comm") else { continue }
            if comm.hasPrefix(prefix) { count += 1 }
        }
        return count
    }
}

/// The shared runtime: a global `let`, so created once, on first use, thread-safely.
private let sharedProbeRuntime = ProbeRuntime.startShared()

/// A thread's name from /proc (at most 16 bytes there).
private enum BoundedThreadName {
    struct Unreadable: Error {}

    static func read(_ path: String) throws -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Unreadable() }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { throw Unreadable() }
        return String(decoding: buffer.prefix(count).prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
    }
}

import ATSProbe
import TLSFacts

/// What bounds an audit run: `audit --concurrency --per-host --rate --deadline --shard`.
/// The command checks the user's values (docs/audit.md); the scheduler trusts them.
public struct AuditLimits: Sendable {
    /// Targets in flight at once, in all (each holds its slot until its result is handled).
    public var concurrency: Int
    /// Targets of one host (or --connect-to address) in flight at once.
    public var perHost: Int
    /// Target starts per second; nil is no limit.
    public var rate: Double?
    /// Seconds one run of one target may take; then it is cancelled and reported as timed out.
    /// `.infinity`: no deadline beyond each connection's own timeout.
    public var deadlineSeconds: Double
    /// The share of the input this run takes.
    public var shard: AuditShard
    /// Runs of one target after this machine ran out of resources, before it is reported as a
    /// local failure (issue 15: never blamed on the server).
    public var localRetries: Int
    /// The wait before retry N is N times this: other targets have time to give back what they hold.
    public var retryBackoff: Duration

    /// Runs of one target after this machine ran out of resources, before it is reported (exit 70).
    public static let defaultLocalRetries = 3
    /// Seconds of this machine not running (`AuditWork.stalledSeconds`) that make a target's
    /// passed deadline this machine's failure: the reactor's own threshold (half a second).
    public static let stallThreshold = 0.5
    /// Probes one target runs at once, about: its distinct first-hop offers start together.
    public static let probesPerTarget = 4

    public init(concurrency: Int, perHost: Int, rate: Double? = nil, deadlineSeconds: Double, shard: AuditShard = .whole,
                localRetries: Int = AuditLimits.defaultLocalRetries, retryBackoff: Duration = .milliseconds(200)) {
        self.concurrency = max(1, concurrency)
        self.perHost = max(1, perHost)
        self.rate = rate
        self.deadlineSeconds = deadlineSeconds
        self.shard = shard
        self.localRetries = max(0, localRetries)
        self.retryBackoff = retryBackoff
    }

    /// The limits of a command that prints every target in the order given (`diagnose`,
    /// `plist check`, `app`): `concurrency` targets in flight, no per-host cap beyond it, no
    /// rate, no deadline beyond each connection's --timeout (the commands have no --deadline),
    /// and no retry after a local failure: the command stops with it (exit 70). Four at once by
    /// default: each target's run already starts its own handshakes together, and the prober
    /// bounds handshakes overall (as `app`'s width-4 loop did).
    public static func inOrder(concurrency: Int = 4) -> AuditLimits {
        AuditLimits(concurrency: concurrency, perHost: concurrency, rate: nil, deadlineSeconds: .infinity, localRetries: 0)
    }

    /// Targets read ahead of the free slots, waiting for their host (`AuditParking`). When it is
    /// full, reading the input waits for a target to finish, so memory stays flat.
    public var queueCapacity: Int { 4 * concurrency }

    /// --concurrency, capped by what the open-file limit (`ulimit -n`) allows: past the cap targets
    /// would only queue for sockets (DescriptorBudget) while their --deadline runs. The caller
    /// warns when the result is less than `asked`.
    public static func concurrencyAllowed(asked: Int, budget: DescriptorBudget) -> Int {
        min(asked, max(1, budget.slots / probesPerTarget))
    }
}

/// Targets waiting for their host's --per-host slot, in input order, and the count in flight
/// per host. A host is forgotten when it has nothing in flight, so memory stays flat.
struct AuditParking<Tag: Sendable> {
    struct Item: Sendable {
        let tag: Tag
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

/// `--rate N`: target starts spaced 1/N seconds apart, on `clock` (a test's clock can be
/// advanced by hand).
struct AuditRateLimiter<C: Clock> where C.Duration == Duration {
    private let interval: Duration?
    private let clock: C
    private var next: C.Instant

    init(perSecond rate: Double?, clock: C) {
        // The command bounds the rate to 0.001...100000; clamp anyway so no value can trap.
        interval = rate.map { .nanoseconds(Int64(min(max(1e9 / $0, 0), 1e15))) }
        self.clock = clock
        next = clock.now
    }

    mutating func wait() async {
        guard let interval else { return }
        let now = clock.now
        if next > now { try? await clock.sleep(until: next, tolerance: nil) }
        next = max(next, now).advanced(by: interval)
    }
}

/// Runs `operation` and returns its value, or nil once `seconds` pass first on `clock`.
/// Structured: at the deadline the operation's task is cancelled and awaited, and the probe
/// engine ends its handshakes at once (sockets closed, handshake slots freed), so a timed-out
/// target never keeps working beside the one that takes its --concurrency slot.
func withDeadline<Value: Sendable, C: Clock>(seconds: Double, clock: C,
                                             _ operation: @escaping @Sendable () async -> Value) async -> Value?
where C.Duration == Duration {
    // No deadline (a command that prints every target, `AuditLimits.inOrder`): each of the
    // run's connections is still bounded by its own --timeout.
    guard seconds.isFinite else { return await operation() }
    return await withTaskGroup(of: Value?.self) { group in
        group.addTask { await operation() }
        group.addTask {
            try? await clock.sleep(until: clock.now.advanced(by: .seconds(seconds)), tolerance: nil)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// How many probes of one `ProbeRuntime` may hold sockets at once. Every probe needs a socket
/// and, while resolving, the resolver's own descriptor; past the open-file limit socket() and
/// getaddrinfo fail with EMFILE, which used to read as the server's fault ("name not resolved:
/// System error"). Probes (handshakes and cleartext GETs alike) wait here for a slot instead, so
/// a low `ulimit -n` slows a run down but never changes a verdict.
///
/// The budget never changes the process's limit by itself: an embedding tool keeps its own.
/// `ProbeRuntime.Configuration.raisesOpenFileLimit` asks for the soft limit to be raised to the
/// hard one first (the command line does, as Go's runtime does).
public final class DescriptorBudget: Sendable {
    /// Descriptors kept back, beyond those already open, for input and output files, the
    /// trust store's reads, the runtime's own (epoll, eventfd).
    static let reserved = 16
    /// Descriptors one probe holds at its peak: its socket and the resolver's socket.
    public static let perProbe = 2

    /// The slots, as a cancellable first-come-first-served queue (a waiter whose task is
    /// cancelled leaves at once, holding nothing).
    let semaphore: TaskSemaphore
    public let slots: Int

    public init(slots: Int) {
        self.slots = max(1, slots)
        semaphore = TaskSemaphore(limit: max(1, slots))
    }

    /// The most slots a runtime has, whatever the limit: 16,384 probes, so that `--concurrency
    /// 1000` (each target makes its 10 handshakes at once) has every connection open together, as
    /// a C client making the same connections does, when the open-file limit allows it. (At 4,096,
    /// six of ten probes waited for a slot at that concurrency, each holding its async frames.)
    public static let maxSlots = 16_384

    /// How many probes fit under the open-file limit, beside the descriptors open now. With
    /// `raisingLimit`, the soft limit is first raised to the hard one (capped at 2^20).
    public static func slotsAllowedByLimit(raisingLimit: Bool) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 256 }
        if raisingLimit && limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = min(limit.rlim_max, 1 << 20)
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        let usable = Int(clamping: min(limit.rlim_cur, 1 << 20)) - openDescriptors() - reserved
        return max(1, min(usable / perProbe, maxSlots))
    }

    /// Descriptors open now (inherited ones count against the limit too); 8 when unknown.
    static func openDescriptors() -> Int {
        guard let directory = opendir("/proc/self/fd") else { return 8 }
        defer { closedir(directory) }
        var count = 0
        while readdir(directory) != nil { count += 1 }
        return max(0, count - 3)  // ".", ".." and the directory's own descriptor
    }

    /// Waits for a slot; pair with `release()`. False, holding nothing, when the task is
    /// cancelled while waiting.
    @discardableResult
    public func acquire() async -> Bool { await semaphore.acquire() }

    public func release() { semaphore.release() }

    /// Probes waiting for a slot now (tests).
    package var waiting: Int { semaphore.waiting }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// How many probes may hold sockets at once, from the process's open-file limit. Every probe
/// needs a socket and, while resolving, the resolver's own descriptor; past the limit socket()
/// and getaddrinfo fail with EMFILE, which used to read as the server's fault ("name not
/// resolved: System error"). Probes wait here for a slot instead, so a low `ulimit -n` slows a
/// run down but never changes a verdict. One budget for the process: the limit is per process.
public final class DescriptorBudget: Sendable {
    public static let shared = DescriptorBudget(slots: DescriptorBudget.slotsAllowedByLimit())

    /// Descriptors kept back, beyond those already open, for input and output files, the
    /// trust store's reads, the runtime.
    static let reserved = 16
    /// Descriptors one probe holds at its peak: its socket and the resolver's socket.
    public static let perProbe = 2

    /// The slots, as a cancellable first-come-first-served queue (a waiter whose task is
    /// cancelled leaves at once, holding nothing).
    private let limiter: HandshakeLimiter
    public let slots: Int

    init(slots: Int) {
        self.slots = max(1, slots)
        limiter = HandshakeLimiter(limit: max(1, slots))
    }

    /// Raises the soft open-file limit to the hard one (as Go's runtime does), then returns how
    /// many probes fit under it.
    public static func slotsAllowedByLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 256 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = min(limit.rlim_max, 1 << 20)
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        let usable = Int(clamping: min(limit.rlim_cur, 1 << 20)) - openDescriptors() - reserved
        return max(1, min(usable / perProbe, 4096))
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
    public func acquire() async -> Bool { await limiter.acquire() }

    public func release() { limiter.release() }
}

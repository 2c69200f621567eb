#if canImport(Glibc)
import Glibc
#endif

/// The probe runtime could not start: this machine gave no descriptor, memory or thread
/// (`ulimit -n`, `ulimit -v`). Not the input's fault and not a server's: the command line
/// reports it with exit status 70 (docs/exit-codes.md).
public struct RuntimeStartError: Error, Sendable, CustomStringConvertible {
    /// What could not be made, for code: callers compare this (and `errno`), never `what`'s text.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The reactor's event queue or wake-up (epoll_create1, eventfd): no descriptor.
        case reactor
        /// The engine's threads: no thread or no memory for one.
        case engineThreads
        /// The resolver (c-ares): its library or its channel.
        case resolver
    }

    public let code: Code
    /// What could not be made ("the reactor's epoll_create1"), for people.
    public let what: String
    /// errno, when the system gave one; 0 otherwise.
    public let errno: Int32

    init(_ code: Code, what: String, errno: Int32) {
        self.code = code
        self.what = what
        self.errno = errno
    }

    public var description: String {
        let reason = errno != 0 ? String(cString: strerror(errno)) : "refused"
        return "the probe engine cannot start on this machine: \(what) failed (\(reason))"
    }
}

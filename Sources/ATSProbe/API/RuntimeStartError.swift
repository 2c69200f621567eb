#if canImport(Glibc)
import Glibc
#endif

/// The probe runtime could not start: this machine gave no descriptor, memory or thread
/// (`ulimit -n`, `ulimit -v`). Not the input's fault and not a server's: the command line
/// reports it with exit status 70 (docs/exit-codes.md).
public struct RuntimeStartError: Error, Sendable, CustomStringConvertible {
    /// What could not be made ("the reactor's epoll_create1").
    public let what: String
    /// errno, when the system gave one.
    public let errno: Int32

    public var description: String {
        let reason = errno != 0 ? String(cString: strerror(errno)) : "refused"
        return "the probe engine cannot start on this machine: \(what) failed (\(reason))"
    }
}

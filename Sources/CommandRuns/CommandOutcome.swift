import ATSCommandOutputs
import ATSEngine
import ATSFiles
import ATSProbe
import ATSReport
#if canImport(Glibc)
import Glibc
#endif
import TextSupport

extension ExitStatus {
    /// A command body's status; results written to standard output are lost if a write failed
    /// (a full disk, /dev/full): said, and not 0. Any error as `init(reporting:warn:)` tells it.
    package static func guarded(warn: (String) -> Void, _ body: () async throws -> ExitStatus) async -> ExitStatus {
        do {
            let result = try await body()
            try FileStream.standardOutput.finish()
            return result
        } catch {
            return ExitStatus(reporting: error, warn: warn)
        }
    }

    /// A command's error as one line told through `warn` and its documented exit status: bad
    /// input 64 (70 when it is this machine's failure), everything else 70.
    package init(reporting error: any Error, warn: (String) -> Void) {
        switch error {
        case let error as InputError:
            warn(error.message)
            self = error.code == .localResources ? .internalError : .usage
        case let error as RuntimeStartError:
            // `ulimit -n` or `ulimit -v` left no descriptor, memory or thread for the engine.
            warn(error.description)
            self = .internalError
        case let error as TargetRunError:
            // This machine, not the input or a server, failed a target of an in-order run
            // (diagnose, plist check, app: out of descriptors, memory, threads): no verdict.
            let why = error.failure.map { ProbeText.describe($0) } ?? "did not finish"
            warn(UntrustedText.escape("\(error.target.url): \(why)", limit: 1000))
            self = .internalError
        default:
            warn("internal error: \(error) (please report it)")
            self = .internalError
        }
    }
}

/// What the process needs before anything else runs.
package enum ProcessStart {
    /// Descriptors libdispatch needs for itself (the main queue's eventfd; its event loop's
    /// epoll, eventfd and timers): it traps (SIGILL, exit 132) when it cannot make them.
    package static let descriptorsForDispatch = 4

    /// Checked before libdispatch's first use: `dispatchMain()` ends the main thread and
    /// libdispatch makes its descriptors, trapping when none is left (`ulimit -n 5`: issue 40,
    /// item 4). Without `descriptorsForDispatch` free, the message to end the run with (exit
    /// 70); nil when they are there.
    package static func descriptorShortage() -> String? {
        // Taken and given back at once: only whether they exist matters.
        var spares: [Int32] = []
        var failure: Int32 = 0
        while spares.count < descriptorsForDispatch {
            let spare = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 0)
            guard spare >= 0 else {
                failure = errno
                break
            }
            spares.append(spare)
        }
        for spare in spares { close(spare) }
        guard failure != 0 else { return nil }
        var limit = rlimit()
        let limitText = getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 ? " (ulimit -n \(limit.rlim_cur))" : ""
        return "this machine leaves atsprobe too few file descriptors\(limitText): \(String(cString: strerror(failure))); raise the limit"
    }
}

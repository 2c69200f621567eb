import ATSReport
import ATSProbe
#if canImport(Glibc)
import Glibc
#endif

/// The command line's probe runtime: one per process, started on first use (a global `let`),
/// and, unlike the library's default, allowed to raise the soft open-file limit to the hard one
/// (as Go's runtime does), so `audit --concurrency` can use what the machine gives. `audit` shuts
/// it down before it exits, after a signal too (docs/robustness.md, "Signals").
///
/// Guarded by the runtime's watchdog: when its threads stop answering (a deadlock, a bug), the
/// process ends with one line and exit status 70 rather than sleeping for ever
/// (docs/robustness.md, "A stuck engine").
package enum CommandRuntime {
    /// The runtime, started on first use; throws (on every use) when this machine gave no
    /// descriptor or thread for it: the command ends with one line and exit status 70.
    package static var runtime: ProbeRuntime {
        get throws(RuntimeStartError) { try commandRuntime.get() }
    }

    /// How long the engine's threads may go without answering before the run is ended: far
    /// above any healthy answer (milliseconds, even with 10,000 targets in flight), well below
    /// the minutes a person waits before giving up.
    package static let stuckAfter = 10.0
}

private let commandRuntime: Result<ProbeRuntime, RuntimeStartError> = Result { () throws(RuntimeStartError) in
    let runtime = try ProbeRuntime(configuration: ProbeRuntime.Configuration(raisesOpenFileLimit: true))
    runtime.startWatchdog(stuckAfter: CommandRuntime.stuckAfter) { seconds in
        // write(2) straight to descriptor 2: the stuck threads may hold any lock of ours.
        let line = "atsprobe: internal error: the probe engine made no progress for \(Int(seconds)) s while this process was running (a deadlock: please report it); no verdict was drawn\n"
        _ = line.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
        _exit(70)
    }
    return runtime
}

import ATSProbe

/// The command line's probe runtime: one per process, started on first use (a global `let`),
/// and, unlike the library's default, allowed to raise the soft open-file limit to the hard one
/// (as Go's runtime does), so `audit --concurrency` can use what the machine gives. `audit` shuts
/// it down before it exits, after a signal too (docs/robustness.md, "Signals").
enum CommandRuntime {
    static var runtime: ProbeRuntime { commandRuntime }
}

private let commandRuntime = ProbeRuntime(configuration: ProbeRuntime.Configuration(raisesOpenFileLimit: true))

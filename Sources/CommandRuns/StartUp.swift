import ATSEngine
import ATSPolicy
import Dispatch
import Synchronization
import TLSFacts

/// What the executable starts before it parses its command line (issue 43, "Start-up" in
/// docs/performance.md).
package enum StartUp {
    /// For `diagnose` (and nscurl's `--ats-diagnostics`, repaired into it) under the default rule
    /// set, the TLS contexts of the targets' first wave and OpenSSL's certificate reading are made
    /// on another thread while the main one parses the command line
    /// (`DiagnosticsRunner.prepareFirstWave`): a one-host run's parse and those are each about a
    /// fifth of its instructions. Read from the words as given: a URL anywhere, or a word
    /// that follows no option (after an option it may be the option's value). Nothing is made
    /// for help, another rule set or more than a few targets; a word that is not the run's
    /// target costs that thread only.
    package static func prepare(_ arguments: [String]) {
        guard arguments.first == "diagnose" else { return }
        var targets: [Target] = []
        var previous = ""
        for argument in arguments.dropFirst() {
            defer { previous = argument }
            if argument == "--" || argument == "-h" || argument == "--help" || argument.hasPrefix("--rules") { return }
            if argument.hasPrefix("-") { continue }
            guard argument.contains("://") || !previous.hasPrefix("-") else { continue }
            if let target = try? Target(parsing: argument) { targets.append(target) }
        }
        guard !targets.isEmpty, targets.count <= maximumTargets else { return }
        preparing.enter()
        DispatchQueue.global().async { [targets] in
            DiagnosticsRunner.prepareFirstWave(of: targets, ruleSet: .current, while: { !stopping.load(ordering: .relaxed) })
            preparing.leave()
        }
    }

    /// Before the process exits: OpenSSL frees its state at exit (its atexit handler), which a
    /// thread still making a context would then use. Stops the preparation after the step in
    /// hand and waits for it (a parse error can end the process before it is done), at most
    /// five seconds.
    package static func finish() {
        stopping.store(true, ordering: .relaxed)
        _ = preparing.wait(timeout: .now() + .seconds(5))
    }

    private static let preparing = DispatchGroup()
    private static let stopping = Atomic<Bool>(false)

    /// More targets than this are not prepared: their runs are longer than the start.
    static let maximumTargets = 4
}

import ATSFiles
import ATSCommandOutputs
import ATSPolicy
import ATSReport
import ArgumentParser
import CommandRuns

/// The root command. `atsprobe --ats-diagnostics URL` keeps nscurl's spelling; everything
/// else is a subcommand.
struct ATSProbeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "atsprobe",
        abstract: "Test TLS servers against Apple's App Transport Security, from any machine.",
        usage: """
        atsprobe --ats-diagnostics [--verbose] <url>
        atsprobe <subcommand>
        """,
        discussion: """
        atsprobe --ats-diagnostics [--verbose] URL   runs nscurl's \(NSCurlMatrix.count) ATS tests (the same as `atsprobe diagnose URL`).
        Exit codes: 0 passes default ATS, 1 findings, 2 unreachable, 64 bad input, 70 internal error.
        Documentation: /usr/share/doc/atsprobe/docs (installed with the .deb; docs/ in the source), starting with usage.md.
        """,
        version: ToolVersion.current,
        subcommands: [Probe.self, Diagnose.self, Audit.self, Report.self, Pins.self, Plist.self, Cert.self, App.self, Serve.self]
    )

    /// Never set: Main turns `--ats-diagnostics` into `diagnose` before parsing. Declared so
    /// that help, the shell completions and the man page (all generated from this model) show it.
    @Flag(name: .customLong("ats-diagnostics"), help: "Run nscurl's \(NSCurlMatrix.count) ATS tests on the URL that follows; the same as `atsprobe diagnose URL`, with its options.")
    var atsDiagnostics = false

    func run() async throws {
        throw CleanExit.helpRequest(self)
    }

    /// Runs a command body, turning errors into one-line messages and documented exit codes (`ExitStatus.guarded`).
    static func guarded(_ body: () async throws -> ExitStatus) async throws {
        let status = await ExitStatus.guarded(warn: Diagnostics.warn, body)
        if status != .clear { throw status.exitCode }
    }
}

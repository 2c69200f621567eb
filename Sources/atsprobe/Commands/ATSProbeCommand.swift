import ATSEngine
import ATSFiles
import ATSPolicy
import ATSProbe
import ATSCommandOutputs
import ATSReport
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextSupport
import TLSFacts

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
        atsprobe --ats-diagnostics [--verbose] URL   runs nscurl's \(NSCurlMatrix.titles.count) ATS tests (the same as `atsprobe diagnose URL`).
        Exit codes: 0 passes default ATS, 1 findings, 2 unreachable, 64 bad input, 70 internal error.
        Documentation: /usr/share/doc/atsprobe/docs (installed with the .deb; docs/ in the source), starting with usage.md.
        """,
        version: ToolVersion.current,
        subcommands: [Probe.self, Diagnose.self, Audit.self, Report.self, Pins.self, Plist.self, Cert.self, App.self, Serve.self]
    )

    /// Never set: Main turns `--ats-diagnostics` into `diagnose` before parsing. Declared so
    /// that help, the shell completions and the man page (all generated from this model) show it.
    @Flag(name: .customLong("ats-diagnostics"), help: ArgumentHelp("Run nscurl's \(NSCurlMatrix.titles.count) ATS tests on the URL that follows; the same as `atsprobe diagnose URL`, with its options."))
    var atsDiagnostics = false

    func run() async throws {
        throw CleanExit.helpRequest(self)
    }

    /// Runs a command body, turning errors into one-line messages and documented exit codes.
    static func guarded(_ body: () async throws -> ExitStatus) async throws {
        let status: ExitStatus
        do {
            let result = try await body()
            // Results written to standard output are lost if a write failed (a full disk,
            // /dev/full): say so, and do not exit 0.
            try FileStream.standardOutput.finish()
            status = result
        } catch let error as InputError {
            Diagnostics.warn(error.message)
            status = error.isLocalFailure ? .internalError : .usage
        } catch let error as RuntimeStartError {
            // `ulimit -n` or `ulimit -v` left no descriptor, memory or thread for the engine.
            Diagnostics.warn(error.description)
            status = .internalError
        } catch let error as TargetRunError {
            // This machine, not the input or a server, failed a target of an in-order run
            // (diagnose, plist check, app: out of descriptors, memory, threads): no verdict.
            Diagnostics.warn(UntrustedText.escape(ProbeText.describe(error), limit: 1000))
            status = .internalError
        } catch {
            Diagnostics.warn("internal error: \(error) (please report it)")
            status = .internalError
        }
        if status != .clear { throw status.exitCode }
    }
}

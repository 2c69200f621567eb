import ArgumentParser
import Foundation
import TLSFacts

/// The root command. `atsprobe --ats-diagnostics URL` keeps nscurl's spelling; everything
/// else is a subcommand.
@main
struct ATSProbeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "atsprobe",
        abstract: "Test TLS servers against Apple's App Transport Security, from any machine.",
        discussion: """
        atsprobe --ats-diagnostics https://example.com   runs nscurl's 16 ATS tests.
        Exit codes: 0 passes default ATS, 1 findings, 2 unreachable, 64 bad input, 70 internal error.
        """,
        version: "0.1.0",
        subcommands: [Probe.self, Diagnose.self]
    )

    @Flag(name: .customLong("ats-diagnostics"), help: "Run nscurl's ATS diagnostics against the target (nscurl's spelling).")
    var atsDiagnostics = false

    @Argument(help: "URL or HOST, with --ats-diagnostics.")
    var target: String?

    @OptionGroup var diagnostics: DiagnosticsArguments
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        if !atsDiagnostics && target == nil { throw CleanExit.helpRequest(self) }
        try await ATSProbeCommand.guarded {
            guard atsDiagnostics, let target else {
                let text = UntrustedText.escape(target ?? "", limit: 60)
                throw InputError(atsDiagnostics ? "--ats-diagnostics needs a URL or HOST" : "unknown command '\(text)' (did you mean --ats-diagnostics \(text)?)")
            }
            try await runDiagnostics(targets: [target], diagnostics: diagnostics, connection: connection, output: output)
        }
    }

    /// Runs a command body, turning errors into one-line messages and documented exit codes.
    static func guarded(_ body: () async throws -> ExitStatus) async throws {
        let status: ExitStatus
        do {
            status = try await body()
        } catch let error as InputError {
            Diagnostics.warn(error.message)
            status = .usage
        } catch {
            Diagnostics.warn("internal error: \(error) (please report it)")
            status = .internalError
        }
        if status != .clear { throw status.exitCode }
    }
}

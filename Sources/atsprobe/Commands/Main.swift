import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import TLSFacts

/// Entry point. The command line is repaired first (CommandLineRepair): nscurl's
/// `--ats-diagnostics` anywhere names `diagnose` (argument-parser cannot mix a root positional
/// with subcommands), `--color` may come before the subcommand, and typos get "did you mean".
@main
enum Main {
    static func main() async {
        switch CommandLineRepair.repair(Array(CommandLine.arguments.dropFirst())) {
        case .run(let arguments):
            await run(arguments)
        case .usage(let message):
            Diagnostics.warn(message)
            exit(ExitStatus.usage.rawValue)
        }
    }

    static func run(_ arguments: [String]) async {
        // As AsyncParsableCommand.main does, except that argument-parser's own messages ("The
        // value '\u{1B}[2J' is invalid ...") echo the arguments: they are escaped like every
        // other output before they reach the terminal.
        do {
            var command = try ATSProbeCommand.parseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exitEscaped(withError: error)
        }
    }

    static func exitEscaped(withError error: Error) -> Never {
        let code = ATSProbeCommand.exitCode(for: error)
        let message = ATSProbeCommand.fullMessage(for: error)
        if !message.isEmpty && code == .success {
            // Help, --version, completion scripts, the man page's dump: made from atsprobe's own
            // model, written as they are.
            FileStream.standardOutput.write(message.hasSuffix("\n") ? message : message + "\n")
            if (try? FileStream.standardOutput.finish()) == nil { exit(ExitStatus.usage.rawValue) }
        } else if !message.isEmpty {
            let escaped = message.split(separator: "\n", omittingEmptySubsequences: false)
                .map { UntrustedText.escape(String($0), limit: 4000) }.joined(separator: "\n")
            let stream = code == .success ? FileStream.standardOutput : FileStream.standardError
            stream.write(escaped.hasSuffix("\n") ? escaped : escaped + "\n")
            if code == .success, (try? FileStream.standardOutput.finish()) == nil {
                exit(ExitStatus.usage.rawValue)
            }
        }
        exit(code.rawValue)
    }
}

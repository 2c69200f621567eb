import ATSReport
import ArgumentRepair
import ATSFiles
import CommandRuns
import Dispatch
import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

/// Entry point. The command line is repaired first (ArgumentRepair's CommandLineRepair): nscurl's
/// `--ats-diagnostics` anywhere names `diagnose` (argument-parser cannot mix a root positional
/// with subcommands), `--color` may come before the subcommand, and typos get "did you mean".
@main
enum Main {
    /// Synchronous, so one check runs before libdispatch's (`ProcessStart.descriptorShortage`):
    /// without descriptors for it the run ends here with one line and exit 70 instead of a
    /// trap; the commands run on the main actor as an async `main` ran them.
    static func main() {
        if let shortage = ProcessStart.descriptorShortage() {
            Diagnostics.warn(shortage)
            exit(ExitStatus.internalError.rawValue)
        }
        Task { @MainActor in
            await commandLine()
            exit(0)
        }
        dispatchMain()
    }

    static var repair: CommandLineRepair {
        CommandLineRepair(root: ATSProbeCommand.self, alias: ("--ats-diagnostics", "diagnose"),
                          leadingOption: ("--color", ColorChoice.allCases.map(\.rawValue)),
                          targetCommands: ["diagnose", "probe", "pins", "audit"])
    }

    static func commandLine() async {
        let repair = Main.repair
        let given = Array(CommandLine.arguments.dropFirst())
        // Long options are checked for "did you mean" only when something is wrong (the parse
        // fails, or another repair has a message): a command line the parser takes has none
        // unknown, and reading a command's options renders its help.
        switch repair.repair(given, checkingOptions: false) {
        case .run(let arguments):
            await run(arguments, onParseFailure: { @Sendable in usageMessage(repair.repair(given)) })
        case .usage:
            Diagnostics.warn(usageMessage(repair.repair(given)) ?? "cannot read the command line")
            exit(ExitStatus.usage.rawValue)
        }
    }

    private static func usageMessage(_ outcome: CommandLineRepair.Outcome) -> String? {
        if case .usage(let message) = outcome { return message }
        return nil
    }

    /// `onParseFailure` gives the message to show in place of argument-parser's, if any.
    static func run(_ arguments: [String], onParseFailure: @Sendable () -> String? = { nil }) async {
        // As AsyncParsableCommand.main does, except that argument-parser's own messages ("The
        // value '\u{1B}[2J' is invalid ...") echo the arguments: they are escaped like every
        // other output before they reach the terminal.
        var command: ParsableCommand
        do {
            command = try repair.parse(arguments)
        } catch {
            if ATSProbeCommand.exitCode(for: error) != .success, let message = onParseFailure() {
                Diagnostics.warn(message)
                exit(ExitStatus.usage.rawValue)
            }
            exitEscaped(withError: error)
        }
        do {
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
            // A parse error is one line, as every other atsprobe error (issue 25): argument-parser's
            // message without its usage block, then where the help is. Exit 64.
            FileStream.standardError.write("atsprobe: " + repair.oneLine(error: error, fullMessage: message) + "\n")
        }
        exit(code.rawValue)
    }
}

import ArgumentRepair
import ATSFiles
import Dispatch
import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import TextSupport
import TLSFacts

/// Entry point. The command line is repaired first (ArgumentRepair's CommandLineRepair): nscurl's
/// `--ats-diagnostics` anywhere names `diagnose` (argument-parser cannot mix a root positional
/// with subcommands), `--color` may come before the subcommand, and typos get "did you mean".
@main
enum Main {
    /// Descriptors libdispatch needs for itself (the main queue's eventfd; its event loop's
    /// epoll, eventfd and timers): it traps (SIGILL, exit 132) when it cannot make them.
    static let descriptorsForDispatch = 4

    /// Synchronous, so one check runs before libdispatch's: `dispatchMain()` ends the main
    /// thread and libdispatch makes its descriptors, trapping when none is left (`ulimit -n 5`:
    /// issue 40, item 4). Without `descriptorsForDispatch` free, the run ends here with one line
    /// and exit 70 instead; the commands run on the main actor as an async `main` ran them.
    static func main() {
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
        if failure != 0 {
            var limit = rlimit()
            let limitText = getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 ? " (ulimit -n \(limit.rlim_cur))" : ""
            Diagnostics.warn("this machine leaves atsprobe too few file descriptors\(limitText): \(String(cString: strerror(failure))); raise the limit")
            exit(ExitStatus.internalError.rawValue)
        }
        Task { @MainActor in
            await commandLine()
            exit(0)
        }
        dispatchMain()
    }

    static func commandLine() async {
        let repair = CommandLineRepair(root: ATSProbeCommand.self, alias: ("--ats-diagnostics", "diagnose"),
                                       leadingOption: ("--color", ColorChoice.allCases.map(\.rawValue)),
                                       targetCommands: ["diagnose", "probe", "pins", "audit"])
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
            command = try parse(arguments)
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

    /// The command `arguments` name. A command without subcommands named first is parsed on its
    /// own (`parseAsRoot` on its type): the root's parse builds the whole command tree and
    /// decodes the root before it (a one-host run's parse 27.7 M instructions that way, 23.0 M
    /// this way; docs/performance.md, "Start-up"). Anything that does not parse that way (help,
    /// --version, an error) is parsed again from the root, so every message, help text and exit
    /// code is the root's. (Every subcommand gives its `commandName`: without one, argument-parser
    /// derives it from the type's name, about 1 M instructions at every call.)
    static func parse(_ arguments: [String]) throws -> ParsableCommand {
        if let name = arguments.first,
           let leaf = ATSProbeCommand.configuration.subcommands.first(where: { $0._commandName == name }),
           leaf.configuration.subcommands.isEmpty,
           let command = try? leaf.parseAsRoot(Array(arguments.dropFirst())),
           // Not a help request, which argument-parser answers as a command of its own.
           ObjectIdentifier(type(of: command)) == ObjectIdentifier(leaf) {
            return command
        }
        return try ATSProbeCommand.parseAsRoot(arguments)
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
            FileStream.standardError.write("atsprobe: " + oneLine(error: error, fullMessage: message) + "\n")
        }
        exit(code.rawValue)
    }

    /// "The value 'yaml' is invalid for '--format <format>'. Please provide one of 'text' and
    /// 'json'. (see 'atsprobe probe --help')": the error's own lines joined, escaped, and the
    /// help hint argument-parser puts under its usage text.
    static func oneLine(error: Error, fullMessage: String) -> String {
        let lines = ATSProbeCommand.message(for: error).split(separator: "\n")
            .map { String($0.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()) }
            .map { $0.hasPrefix("Error: ") ? String($0.dropFirst(7)) : $0 }
            .filter { !$0.isEmpty }
        var text = UntrustedText.escape(joinChoices(lines).joined(separator: "; "), limit: 4000)
        if let see = fullMessage.split(separator: "\n").first(where: { $0.contains("See '") && $0.contains("--help'") }) {
            // "  See 'atsprobe plist lint --help' for more information.": the quoted command.
            let quoted = see.split(separator: "'", omittingEmptySubsequences: false)
            if quoted.count >= 3 { text += " (see '\(UntrustedText.escape(String(quoted[1]), limit: 200))')" }
        }
        return text
    }

    /// argument-parser lists many choices one per line ("Please provide one of the
    /// following:", "- text", "- html", ...): in one line they read "Please provide one of:
    /// text, html, ...", not as clauses of their own.
    static func joinChoices(_ lines: [String]) -> [String] {
        let opening = "one of the following:"
        var out: [String] = []
        for line in lines {
            if line.hasPrefix("- "), let last = out.last, last.hasSuffix("one of:") || last.contains("one of: ") {
                out[out.count - 1] = last + (last.hasSuffix(":") ? " " : ", ") + line.dropFirst(2)
            } else if line.hasSuffix(opening) {
                out.append(String(line.dropLast(opening.count)) + "one of:")
            } else {
                out.append(line)
            }
        }
        return out
    }
}

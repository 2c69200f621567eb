import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import TLSFacts

/// Entry point. `--ats-diagnostics` is nscurl's spelling and may sit anywhere on the line
/// (`atsprobe --ats-diagnostics --verbose URL`); it names the `diagnose` command, so it is
/// turned into that before parsing: argument-parser cannot mix a root positional with subcommands.
@main
enum Main {
    static func main() async {
        var arguments = Array(CommandLine.arguments.dropFirst())
        if let index = arguments.firstIndex(of: "--ats-diagnostics") {
            arguments.remove(at: index)
            arguments.insert("diagnose", at: 0)
        }
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
        if !message.isEmpty {
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

#if canImport(Glibc)
import Glibc
#endif

/// Entry point. The command line is repaired first (CommandLineRepair): nscurl's
/// `--ats-diagnostics` anywhere names `diagnose` (argument-parser cannot mix a root positional
/// with subcommands), `--color` may come before the subcommand, and typos get "did you mean".
@main
enum Main {
    static func main() async {
        switch CommandLineRepair.repair(Array(CommandLine.arguments.dropFirst())) {
        case .run(let arguments):
            await ATSProbeCommand.main(arguments)
        case .usage(let message):
            Diagnostics.warn(message)
            exit(ExitStatus.usage.rawValue)
        }
    }
}

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
        await ATSProbeCommand.main(arguments)
    }
}

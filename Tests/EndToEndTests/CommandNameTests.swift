import ArgumentParser
@testable import atsprobe
import Testing

/// Every command gives its name (`CommandConfiguration(commandName:)`). Without one,
/// argument-parser derives it from the type's name through `String(describing:)` and a Mirror at
/// every call, and the command line's repair asks each subcommand's name on every run: `serve`'s
/// was 4.0 M of a one-host run's 137 M instructions (callgrind; docs/performance.md, "Start-up").
@Suite struct CommandNameTests {
    @Test func everyCommandNamesItself() {
        var unnamed: [String] = []
        func walk(_ command: ParsableCommand.Type, _ path: String) {
            let configuration = command.configuration
            if configuration.commandName == nil { unnamed.append(path.isEmpty ? "\(command)" : path) }
            for child in configuration.subcommands {
                walk(child, path + " " + (child.configuration.commandName ?? "\(child)"))
            }
        }
        walk(ATSProbeCommand.self, "")
        #expect(unnamed.isEmpty, "commands without a commandName: \(unnamed)")
    }
}

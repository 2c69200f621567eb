import ArgumentParser
import ArgumentRepair
import Testing

/// A command tree of its own, shaped like atsprobe's: a root with a version and an alias flag,
/// a leaf that takes --color and --timeout, a group with a leaf that takes neither.
struct Tool: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "tool", version: "1.0", subcommands: [Check.self, Group.self])
    @Flag(name: .customLong("old-spelling"), help: "The same as `tool check`.") var oldSpelling = false

    struct Check: ParsableCommand {
        @Option(name: .long) var color: String = "auto"
        @Option(name: .long) var timeout: Double = 10
        @Flag(name: .long) var verbose = false
        @Argument var targets: [String] = []
    }

    struct Group: ParsableCommand {
        static let configuration = CommandConfiguration(subcommands: [Lint.self])
        struct Lint: ParsableCommand {
            @Option(name: .long) var format: String = "text"
            @Argument var file: String
        }
    }
}

@Suite struct CommandLineRepairTests {
    let repair = CommandLineRepair(root: Tool.self, alias: ("--old-spelling", "check"),
                                   leadingOption: ("--color", ["auto", "always", "never"]), targetCommands: ["check", "group"])
    let plain = CommandLineRepair(root: Tool.self)

    @Test func aGoodCommandLineIsUntouched() {
        #expect(repair.repair(["check", "--timeout", "5", "a.test"]) == .run(["check", "--timeout", "5", "a.test"]))
        #expect(repair.repair(["group", "lint", "--format", "json", "f"]) == .run(["group", "lint", "--format", "json", "f"]))
        #expect(repair.repair([]) == .run([]))
    }

    @Test func theAliasNamesItsCommandWhereverItStands() {
        #expect(repair.repair(["a.test", "--old-spelling", "--verbose"]) == .run(["check", "a.test", "--verbose"]))
        // After `--` it is an argument.
        #expect(repair.repair(["check", "--", "--old-spelling"]) == .run(["check", "--", "--old-spelling"]))
    }

    @Test func theLeadingOptionMovesAfterTheCommandOrIsDropped() {
        #expect(repair.repair(["--color", "never", "check", "x"]) == .run(["check", "--color", "never", "x"]))
        #expect(repair.repair(["--color=always", "check", "x"]) == .run(["check", "--color=always", "x"]))
        // A command without --color: dropped.
        #expect(repair.repair(["--color", "never", "group", "lint", "f"]) == .run(["group", "lint", "f"]))
        #expect(repair.repair(["--color", "check", "x"]) == .usage("--color needs a value: auto, always or never (e.g. --color never)"))
        #expect(repair.repair(["--color"]) == .usage("--color needs a value: auto, always or never (e.g. --color never)"))
    }

    @Test func unknownCommandsAndOptionsGetTheNearestName() {
        #expect(repair.repair(["chek", "x"]) == .usage("unknown command 'chek' for 'tool'; did you mean 'check'? (commands: check, group)"))
        #expect(repair.repair(["group", "lnt"]) == .usage("unknown command 'lnt' for 'tool group'; did you mean 'lint'? (commands: lint)"))
        #expect(repair.repair(["help", "grup"]) == .usage("unknown command 'grup' for 'tool'; did you mean 'group'? (commands: check, group)"))
        #expect(repair.repair(["check", "--timout", "5"]) == .usage("unknown option '--timout' for 'tool check'; did you mean '--timeout'?"))
        #expect(repair.repair(["--old-speling", "x"]) == .usage("unknown option '--old-speling' for 'tool'; did you mean '--old-spelling'?"))
        // Nothing near: argument-parser reports it as usual.
        #expect(repair.repair(["check", "--zzzzzzzz"]) == .run(["check", "--zzzzzzzz"]))
    }

    /// Without the option check (the executable parses first, and asks again only when the
    /// parse fails), an unknown option passes to the parser; every other repair is still made.
    @Test func optionsUncheckedPassToTheParser() {
        #expect(repair.repair(["check", "--timout", "5"], checkingOptions: false) == .run(["check", "--timout", "5"]))
        #expect(repair.repair(["--color", "never", "group", "lint", "f"], checkingOptions: false) == .run(["group", "lint", "f"]))
        #expect(repair.repair(["x", "--old-spelling"], checkingOptions: false) == .run(["check", "x"]))
        #expect(repair.repair(["chek", "x"], checkingOptions: false)
            == .usage("unknown command 'chek' for 'tool'; did you mean 'check'? (commands: check, group)"))
        #expect(repair.repair(["check", "--timeout", "-1"], checkingOptions: false) == .run(["check", "--timeout=-1"]))
    }

    @Test func aShortOptionBeforeTheCommandIsToldWhereItGoes() {
        #expect(repair.repair(["-v", "check", "x"]) == .usage("option '-v' goes after the command: 'tool check -v ...'"))
        #expect(repair.repair(["-v"]) == .usage("option '-v' goes after the command: 'tool COMMAND -v ...'"))
    }

    @Test func aNegativeValueIsJoinedToItsOption() {
        #expect(repair.repair(["check", "--timeout", "-1", "x"]) == .run(["check", "--timeout=-1", "x"]))
        #expect(repair.repair(["check", "--timeout", "-0.5"]) == .run(["check", "--timeout=-0.5"]))
    }

    @Test func aMistypedURLIsNamed() {
        #expect(repair.repair(["check", "http//a.test"]) == .usage("'http//a.test' is not a URL; did you mean 'http://a.test'?"))
        #expect(repair.repair(["check", "htps://a.test"]) == .usage("'htps://a.test' is not a URL; did you mean 'https://a.test'?"))
        #expect(CommandLineRepair.repairedURL("ftp://a.test") == nil)
        #expect(CommandLineRepair.repairedURL("https:/a.test") == "https://a.test")
    }

    @Test func aTargetOrVersionInTheCommandsPlace() {
        #expect(repair.repair(["a.test:8443"]) == .usage("'a.test:8443' is not a command; to test a server: 'tool check a.test:8443' (or group)"))
        #expect(repair.repair(["htps://a.test"]) == .usage("'htps://a.test' is not a command; to test a server: 'tool check https://a.test' (or group)"))
        #expect(repair.repair(["version"]) == .usage("unknown command 'version' for 'tool'; did you mean 'tool --version'?"))
        // Without target commands, a target is an unknown command like any other word.
        #expect(plain.repair(["a.test"]) == .usage("unknown command 'a.test' for 'tool' (commands: check, group)"))
    }

    @Test func escapesWhatItEchoes() {
        guard case .usage(let message) = repair.repair(["chek\u{1B}[2J"]) else { Issue.record("not refused"); return }
        #expect(!message.unicodeScalars.contains { $0.value == 0x1B })
    }

    @Test func parserEntryPointsPassThrough() {
        let args = ["--generate-completion-script", "bash", "--colr"]
        #expect(repair.repair(args) == .run(args))
    }
}

import Foundation
import Testing
import TestSupport

/// The shell completions and the man page are generated from the argument parser's model
/// (scripts/package): the completions by `--generate-completion-script`, the man page by
/// argument-parser's generate-manual from `--experimental-dump-help`. These tests read that
/// model and check every command, option and value reaches each script, and that bash really
/// offers them.
@Suite struct CompletionScriptTests {
    /// One command of the model, with the path that names it ("atsprobe plist lint").
    struct Command {
        var path: String
        var subcommands: [String]
        var longOptions: [String]
        /// Values an option offers the shells (enum cases or a `completion: .list`), by option.
        var values: [String: [String]]
        /// Long options taking a value that offer the shells nothing: no cases, no list, no path.
        var bare: [String]
    }

    /// Options whose value is free text by nature (a number, a date, a name, a target), so a
    /// shell has nothing to offer. A new option with a closed set of values, or a path, gives
    /// it to the parser instead (`ExpressibleByArgument` with `allValueStrings`, or `completion:`).
    static let freeText: Set<String> = ["listen", "allow", "pin-leaf-spki", "pin-ca-spki", "connect-to", "dns-servers", "timeout", "at", "host", "concurrency", "per-host", "rate", "deadline", "shard",
                                          "include", "exclude", "bundle", "max-entries", "direct", "metrics-label", "sarif-category", "accept"]

    static func model() async throws -> [Command] {
        let result = try await BinaryRunner.run(["--experimental-dump-help"], timeout: 30)
        try #require(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        // generate-manual refuses any other serialization version.
        #expect(json["serializationVersion"] as? Int == 0)
        var commands: [Command] = []
        func walk(_ node: [String: Any], path: String) {
            let subcommands = (node["subcommands"] as? [[String: Any]]) ?? []
            var command = Command(path: path, subcommands: subcommands.compactMap { $0["commandName"] as? String },
                                  longOptions: [], values: [:], bare: [])
            for argument in (node["arguments"] as? [[String: Any]]) ?? [] {
                guard let names = argument["names"] as? [[String: Any]],
                      let long = names.first(where: { $0["kind"] as? String == "long" })?["name"] as? String else { continue }
                command.longOptions.append(long)
                guard argument["kind"] as? String == "option", !["help", "version"].contains(long) else { continue }
                let completion = argument["completionKind"] as? [String: Any]
                let list = ((completion?["list"] as? [String: Any])?["values"] as? [String]) ?? []
                let values = list + ((argument["allValues"] as? [String]) ?? [])
                if !values.isEmpty { command.values[long] = values }
                if values.isEmpty && completion == nil { command.bare.append(long) }
            }
            commands.append(command)
            for sub in subcommands { walk(sub, path: path + " " + ((sub["commandName"] as? String) ?? "?")) }
        }
        walk(json["command"] as? [String: Any] ?? [:], path: "atsprobe")
        return commands
    }

    @Test func everyCommandOptionAndValueIsInEachScript() async throws {
        let commands = try await Self.model()
        let root = try #require(commands.first)
        #expect(root.longOptions.contains("ats-diagnostics"))
        #expect(Set(root.subcommands).isSuperset(of: ["probe", "diagnose", "audit", "pins", "plist"]))
        let rules = try #require(commands.first { $0.path == "atsprobe diagnose" }?.values["rules"])
        #expect(rules.contains("documented") && rules.count >= 2)
        for command in commands {
            #expect(command.bare.filter { !Self.freeText.contains($0) }.isEmpty,
                    "\(command.path): --\(command.bare.joined(separator: ", --")) offer the shells nothing; give them cases or completion:, or list them in freeText")
        }

        for shell in ["bash", "zsh", "fish"] {
            let result = try await BinaryRunner.run(["--generate-completion-script", shell], timeout: 30)
            #expect(result.status == 0, "\(shell): \(result.stderr)")
            let script = result.stdout
            for command in commands {
                for sub in command.subcommands {
                    #expect(script.contains(sub), "\(shell): no subcommand '\(sub)' of \(command.path)")
                }
                for option in command.longOptions {
                    // fish names a long option without its dashes: `-l 'rules'`, `'rules='`.
                    let spelled = shell == "fish" ? "'\(option)" : "--\(option)"
                    #expect(script.contains(spelled), "\(shell): no --\(option) of \(command.path)")
                }
                for (option, values) in command.values {
                    for value in values {
                        #expect(script.contains(value), "\(shell): no value '\(value)' for --\(option) of \(command.path)")
                    }
                }
            }
        }
    }

    /// Bash itself, with the generated script loaded, asked what it would complete.
    @Test func bashOffersRuleSetsFormatsAndRootOptions() async throws {
        let generated = try await BinaryRunner.run(["--generate-completion-script", "bash"], timeout: 30)
        try #require(generated.status == 0)
        let files = try TemporaryDirectory(prefix: "atsprobe-completion")
        defer { files.remove() }
        let directory = files.url
        let scriptPath = directory.appendingPathComponent("atsprobe.bash").path
        try generated.stdout.write(toFile: scriptPath, atomically: true, encoding: .utf8)

        func complete(_ words: [String]) throws -> Set<String> {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let script = """
            source '\(scriptPath)'
            COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
            _atsprobe atsprobe "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
            let process = try SpawnedProcess("/usr/bin/env", ["bash", "--norc", "--noprofile", "-c", script],
                                             environment: ProcessInfo.processInfo.environment)
            process.closeStdin()
            let timedOut = process.finish(within: 20)
            #expect(!timedOut)
            #expect(process.exitCode == 0, "\(String(decoding: process.stderr, as: UTF8.self))")
            return Set(String(decoding: process.stdout, as: UTF8.self).split(separator: "\n").map(String.init))
        }

        let rules = try complete(["atsprobe", "diagnose", "--rules", ""])
        #expect(rules.isSuperset(of: ["documented", "ios26"]), "\(rules)")
        let formats = try complete(["atsprobe", "probe", "--format", ""])
        #expect(formats.isSuperset(of: ["text", "json"]), "\(formats)")
        let root = try complete(["atsprobe", "--"])
        #expect(root.contains("--ats-diagnostics"), "\(root)")
        let subcommands = try complete(["atsprobe", ""])
        #expect(subcommands.isSuperset(of: ["probe", "diagnose", "audit", "pins", "plist"]), "\(subcommands)")
    }
}

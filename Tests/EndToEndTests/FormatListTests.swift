import ATSCommandOutputs
import ATSPolicy
import ATSReport
import Foundation
import Testing

/// One output registry (issue 39 item 5): each command's `--format` values in its help (argument
/// parser's dump, which the man page and the completions are made from) and docs/usage.md's
/// "Formats" table are the results' registries, not lists written by hand.
@Suite struct FormatListTests {
    /// Every command's `--format` values, as `atsprobe --experimental-dump-help` gives them.
    static func helpFormats() async throws -> [String: [String]] {
        let result = try await BinaryRunner.run(["--experimental-dump-help"])
        #expect(result.status == 0, "dump-help exited \(result.status)")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        var found: [String: [String]] = [:]
        func walk(_ command: [String: Any], _ path: [String]) {
            for argument in command["arguments"] as? [[String: Any]] ?? [] {
                let names = (argument["names"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
                if names.contains("format") { found[path.joined(separator: " ")] = argument["allValues"] as? [String] ?? [] }
            }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] {
                walk(sub, path + [sub["commandName"] as? String ?? "?"])
            }
        }
        walk(try #require(root["command"] as? [String: Any]), [])
        return found
    }

    @Test func eachCommandsHelpListsItsRegistry() async throws {
        let help = try await Self.helpFormats()
        #expect(Set(help.keys) == Set(CommandFormats.all.map(\.command)), "commands with --format: \(help.keys.sorted())")
        for (command, formats) in CommandFormats.all {
            #expect(help[command] == formats.map(\.rawValue), "\(command) --help lists \(help[command] ?? []), its registry \(formats.map(\.rawValue))")
        }
        // The formats `report` renders include the metrics (issue 39: its help once left openmetrics out).
        #expect(help["report"]?.contains("openmetrics") == true)
    }

    /// docs/usage.md, "## Formats": one row per format, `| \`name\` | commands | what |`, the
    /// commands exactly those whose registry renders it.
    @Test func usageFormatsTableIsTheRegistry() throws {
        let usage = try ModuleGraphTests.read("docs/usage.md")
        let heading = try #require(usage.range(of: "\n## Formats\n"))
        let section = String(usage[heading.upperBound...]).components(separatedBy: "\n## ").first ?? ""
        var rows: [String: [String]] = [:]
        for line in section.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4 else { continue }
            rows[cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = cells[2].components(separatedBy: ", ")
        }
        for format in OutputFormat.allCases {
            #expect(rows[format.rawValue] == CommandFormats.commands(writing: format),
                    "docs/usage.md's row for \(format.rawValue) names \(rows[format.rawValue] ?? []), the registries \(CommandFormats.commands(writing: format))")
        }
        #expect(Set(rows.keys) == Set(OutputFormat.allCases.map(\.rawValue)), "docs/usage.md lists formats \(rows.keys.sorted())")
    }

    /// Help counts nscurl's tests from the matrix (NSCurlMatrix), never a number written by hand.
    @Test func helpCountsTheTestsFromTheMatrix() async throws {
        let count = NSCurlMatrix.titles.count
        for arguments in [["diagnose", "--help"], ["--help"]] {
            let result = try await BinaryRunner.run(arguments)
            #expect(result.stdout.contains("nscurl's \(count) ATS tests"), "\(arguments.joined(separator: " ")) does not say \(count)")
        }
        let sources = try ["Sources/atsprobe/Commands/Diagnose.swift", "Sources/atsprobe/Commands/ATSProbeCommand.swift"].map(ModuleGraphTests.read)
        for source in sources { #expect(!source.contains("nscurl's 16"), "a hand-written count of nscurl's tests") }
    }
}

import ArgumentParser
import TextSupport

/// The repaired command line parsed over the root command's model, and a parse error told in
/// one line, as every other error of the program (issue 25).
extension CommandLineRepair {
    /// The command `arguments` name. A command without subcommands named first is parsed on its
    /// own (`parseAsRoot` on its type): the root's parse builds the whole command tree and
    /// decodes the root before it (a one-host run's parse 27.7 M instructions that way, 23.0 M
    /// this way; docs/performance.md, "Start-up"). Anything that does not parse that way (help,
    /// --version, an error) is parsed again from the root, so every message, help text and exit
    /// code is the root's. (Every subcommand gives its `commandName`: without one, argument-parser
    /// derives it from the type's name, about 1 M instructions at every call.)
    package func parse(_ arguments: [String]) throws -> ParsableCommand {
        if let name = arguments.first,
           let leaf = root.configuration.subcommands.first(where: { $0._commandName == name }),
           leaf.configuration.subcommands.isEmpty,
           let command = try? leaf.parseAsRoot(Array(arguments.dropFirst())),
           // Not a help request, which argument-parser answers as a command of its own.
           ObjectIdentifier(type(of: command)) == ObjectIdentifier(leaf) {
            return command
        }
        return try root.parseAsRoot(arguments)
    }

    /// "The value 'yaml' is invalid for '--format <format>'. Please provide one of 'text' and
    /// 'json'. (see 'atsprobe probe --help')": the error's own lines joined, escaped, and the
    /// help hint argument-parser puts under its usage text.
    package func oneLine(error: Error, fullMessage: String) -> String {
        let lines = root.message(for: error).split(separator: "\n")
            .map { String($0.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()) }
            .map { $0.hasPrefix("Error: ") ? String($0.dropFirst(7)) : $0 }
            .filter { !$0.isEmpty }
        var text = UntrustedText.escape(Self.joinChoices(lines).joined(separator: "; "), limit: 4000)
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
    package static func joinChoices(_ lines: [String]) -> [String] {
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

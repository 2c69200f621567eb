import ArgumentParser
import TextSupport

/// What the command line is turned into before argument-parser sees it, so that people coming
/// from nscurl and curl are understood or told the nearest right spelling:
/// - `--ats-diagnostics` anywhere names `diagnose` (nscurl's spelling);
/// - `--color` before the subcommand moves after it (dropped for commands that colour nothing);
/// - an unknown subcommand (also after `help`) or long option gets "did you mean" and exit 64.
/// Command and option names come from argument-parser's own model (the commands' configurations
/// and help), so they never drift from what the parser accepts. Generic over the root command:
/// the executable says which flag names a subcommand, which option may lead, and which commands
/// take a target (a library of its own so it is tested without spawning the binary).
package struct CommandLineRepair {
    package enum Outcome: Equatable {
        case run([String])
        /// A one-line message; exit 64.
        case usage(String)
    }

    /// The root command: its name, subcommands and every command's options are read from it.
    package let root: ParsableCommand.Type
    /// A flag that names a subcommand wherever it stands before `--` (nscurl's
    /// `--ats-diagnostics`, which names `diagnose`): removed, and the command put first.
    package let alias: (flag: String, command: String)?
    /// An option the subcommands take that may also come before the subcommand (`--color`), with
    /// its values: moved after the subcommand, or dropped for one that does not take it.
    package let leadingOption: (name: String, values: [String])?
    /// The commands that take a target, the first suggested for a target in the command's place
    /// (`atsprobe example.com` -> `diagnose`); empty: no such hint.
    package let targetCommands: [String]

    package init(root: ParsableCommand.Type, alias: (flag: String, command: String)? = nil,
                 leadingOption: (name: String, values: [String])? = nil, targetCommands: [String] = []) {
        self.root = root
        self.alias = alias
        self.leadingOption = leadingOption
        self.targetCommands = targetCommands
    }

    /// The root command's name ("atsprobe"), as messages show it.
    package var rootName: String { root._commandName }

    /// argument-parser's own entry points (shell completions, the man page's help dump): passed
    /// through untouched, whatever follows them.
    package static let parserEntryPoints: Set<String> = ["--generate-completion-script", "--experimental-dump-help",
                                                         "--experimental-complete"]

    /// With `checkingOptions` false, long options are not checked against the command's: a
    /// caller that parses first and asks again only when the parse fails skips reading them
    /// (each read renders the command's help: 8% of a one-host run's CPU). Every other repair is
    /// made either way.
    package func repair(_ arguments: [String], checkingOptions: Bool = true) -> Outcome {
        var args = arguments
        if args.contains(where: { arg in Self.parserEntryPoints.contains { arg == $0 || arg.hasPrefix($0 + "=") } }) {
            return .run(args)
        }
        let end = args.firstIndex(of: "--") ?? args.count
        if let alias, let index = args[..<end].firstIndex(of: alias.flag) {
            args.remove(at: index)
            args.insert(alias.command, at: 0)
        }

        // Options before the subcommand: the leading option (--color) moves after it; anything
        // else unknown gets a suggestion.
        var leading: [String] = []
        var index = 0
        // The root's long options, read once (each read renders the root's help).
        var rootOptions: [String]?
        while index < args.count, args[index].hasPrefix("-"), args[index] != "--" {
            let arg = args[index]
            if let option = leadingOption, arg == option.name {
                // A bare --color would take the subcommand as its value (issue 25).
                guard index + 1 < args.count, option.values.contains(args[index + 1]) else {
                    return .usage("\(option.name) needs a value: \(Self.list(option.values)) (e.g. \(option.name) \(option.values.last ?? ""))")
                }
                leading = [arg, args[index + 1]]
                args.removeSubrange(index...(index + 1))
                continue
            }
            if let option = leadingOption, arg.hasPrefix(option.name + "=") {
                leading = [arg]
                args.remove(at: index)
                continue
            }
            if checkingOptions, arg.hasPrefix("--") {
                let known = rootOptions ?? longOptions(of: root) + (alias.map { [$0.flag] } ?? [])
                rootOptions = known
                if let message = unknownOption(arg, known: known, path: []) { return .usage(message) }
            }
            // A short option before the subcommand (`atsprobe -v diagnose x`): the root takes
            // only -h; say where it goes (issue 25).
            if !arg.hasPrefix("--"), arg != "-h" {
                let next = args[(index + 1)...].first { !$0.hasPrefix("-") }
                let command = next.flatMap { word -> String? in
                    if case .success(let found) = resolve([word], stopAtLeaf: true) { return found.1.first }
                    return nil
                }
                let example = command.map { "'\(rootName) \($0) \(shown(arg)) ...'" } ?? "'\(rootName) COMMAND \(shown(arg)) ...'"
                return .usage("option '\(shown(arg))' goes after the command: \(example)")
            }
            index += 1
        }
        guard index < args.count, args[index] != "--" else { return .run(args) }

        // `help WORDS`: the words must name a command.
        if args[index] == "help" {
            let words = args[(index + 1)...].prefix { !$0.hasPrefix("-") }
            if case .failure(let message) = resolve(Array(words)) { return .usage(message) }
            return .run(args)
        }

        // The subcommand path: `diagnose`, `plist lint`.
        let words = args[index...].prefix { !$0.hasPrefix("-") }
        let command: ParsableCommand.Type
        let path: [String]
        switch resolve(Array(words), stopAtLeaf: true) {
        case .failure(let message): return .usage(message)
        case .success(let found): (command, path) = found
        }
        let afterPath = index + path.count
        // Read once, and only when needed: rendering a command's help to read its options cost
        // 6-8% of a one-host run's CPU each time, and it was read again for every option given.
        var options: [String]?
        func commandOptions() -> [String] {
            if let options { return options }
            let read = longOptions(of: command)
            options = read
            return read
        }
        var stop = args.firstIndex(of: "--") ?? args.count
        for arg in args[min(afterPath, stop)..<stop] where checkingOptions && arg.hasPrefix("--") {
            if let message = unknownOption(arg, known: commandOptions(), path: path) { return .usage(message) }
        }
        // `--timeout -1`: argument-parser reads "-1" as an option and answers with its usage
        // text; joined as `--timeout=-1`, the command's own check names the value (exit 64).
        var position = min(afterPath, stop)
        while position + 1 < stop {
            if args[position].hasPrefix("--"), !args[position].contains("="), Self.isNegativeNumber(args[position + 1]) {
                args[position] += "=" + args[position + 1]
                args.remove(at: position + 1)
                stop -= 1
            }
            position += 1
        }
        // A URL with its scheme mistyped (`http//host`, `https:/host`, `htps://host`).
        for arg in args[min(afterPath, stop)..<stop] where !arg.hasPrefix("-") {
            if let meant = Self.repairedURL(arg) {
                return .usage("'\(shown(arg))' is not a URL; did you mean '\(shown(meant))'?")
            }
        }
        if !leading.isEmpty, let option = leadingOption, commandOptions().contains(option.name) {
            args.insert(contentsOf: leading, at: afterPath)
        }
        return .run(args)
    }

    package enum Resolution {
        case success((ParsableCommand.Type, [String]))
        case failure(String)
    }

    /// Follows `words` down the command tree. With `stopAtLeaf`, words after a command without
    /// subcommands are its arguments.
    package func resolve(_ words: [String], stopAtLeaf: Bool = false) -> Resolution {
        var command: ParsableCommand.Type = root
        var path: [String] = []
        for word in words {
            let children = command.configuration.subcommands
            if children.isEmpty {
                if stopAtLeaf { break }
                return .failure("'\(rootName) \(path.joined(separator: " "))' has no subcommand '\(shown(word))'")
            }
            // Names are asked up to the match: asking a command's name builds its configuration
            // (its help text), 0.4-0.5 M instructions for `audit`'s and `report`'s. All of them
            // only for the message.
            guard let child = children.first(where: { Self.commandName($0) == word }) else {
                if path.isEmpty, let hint = rootHint(word) { return .failure(hint) }
                let names = children.map { Self.commandName($0) }
                let place = path.isEmpty ? rootName : "\(rootName) \(path.joined(separator: " "))"
                var message = "unknown command '\(shown(word))' for '\(place)'"
                if let near = Self.nearest(word, in: names) { message += "; did you mean '\(near)'?" }
                return .failure(message + " (commands: \(names.joined(separator: ", ")))")
            }
            command = child
            path.append(word)
        }
        return .success((command, path))
    }

    /// What a word in the command's place most likely meant: `atsprobe version` is `--version`
    /// (when the root has a version), `atsprobe example.com:8443` (a target, not a command) is the
    /// first of `targetCommands` (issue 25).
    package func rootHint(_ word: String) -> String? {
        if word == "version", !root.configuration.version.isEmpty {
            return "unknown command 'version' for '\(rootName)'; did you mean '\(rootName) --version'?"
        }
        let looksLikeTarget = word.contains(".") || word.contains(":") || word.contains("/")
        guard looksLikeTarget, let first = targetCommands.first else { return nil }
        let target = Self.repairedURL(word) ?? word
        let others = targetCommands.dropFirst()
        return "'\(shown(word))' is not a command; to test a server: '\(rootName) \(first) \(shown(target))'"
            + (others.isEmpty ? "" : " (or \(others.joined(separator: ", ")))")
    }

    /// "-1", "-0.5": a negative number given as an option's value.
    package static func isNegativeNumber(_ arg: String) -> Bool {
        arg.count > 1 && arg.hasPrefix("-") && Double(arg.dropFirst()) != nil
    }

    /// The URL a mistyped one most likely meant, or nil when `text` is not a mistyped URL:
    /// a scheme without its colon (`http//host`), with one slash (`https:/host`), or a scheme
    /// one or two edits from http or https (`htps://host`, `htttp://host`).
    package static func repairedURL(_ text: String) -> String? {
        let lower = text.lowercased()
        for scheme in ["https", "http"] {
            if lower.hasPrefix(scheme + "//") { return scheme + "://" + text.dropFirst(scheme.count + 2) }
            if lower.hasPrefix(scheme + ":/"), !lower.hasPrefix(scheme + "://") { return scheme + "://" + text.dropFirst(scheme.count + 2) }
        }
        if let separator = text.firstRange(of: "://") {
            let scheme = text[..<separator.lowerBound].lowercased()
            guard scheme != "http", scheme != "https", !scheme.isEmpty, scheme.allSatisfy({ $0.isLetter }) else { return nil }
            let rest = text[separator.upperBound...]
            let near = ["https", "http"].map { ($0, EditDistance.between(scheme, $0)) }.min { $0.1 < $1.1 }
            // Two edits only for longer words: "ftp" is a scheme of its own, not a typo of http.
            if let near, near.1 == 1 || (near.1 == 2 && scheme.count >= 4) { return near.0 + "://" + rest }
        }
        return nil
    }

    package static func commandName(_ command: ParsableCommand.Type) -> String {
        command._commandName
    }

    /// A message when `arg` is a long option `command` does not know and a near name exists;
    /// nil otherwise (argument-parser then reports it as usual).
    /// `known` is the command's long options (`longOptions(of:)`).
    package func unknownOption(_ arg: String, known: [String], path: [String]) -> String? {
        let name = String(arg.split(separator: "=", maxSplits: 1).first ?? "")
        guard name.count > 2, !known.contains(name), let near = Self.nearest(name, in: known) else { return nil }
        let place = ([rootName] + path).joined(separator: " ")
        return "unknown option '\(shown(name))' for '\(place)'; did you mean '\(near)'?"
    }

    /// Every long option of `command`, read from the help argument-parser generates for it.
    package func longOptions(of command: ParsableCommand.Type) -> [String] {
        let help = root.helpMessage(for: command, includeHidden: true, columns: 10_000)
        var names: Set<String> = ["--help", "--version"]
        var current = ""
        for ch in help + " " {
            if ch.isLetter || ch.isNumber || ch == "-" {
                current.append(ch)
            } else {
                if current.hasPrefix("--"), current.count > 2 {
                    names.insert(String(current.reversed().drop { $0 == "-" }.reversed()))
                }
                current = ""
            }
        }
        return names.sorted()
    }

    /// The closest name by edit distance, when close enough to be a typo (or a unique prefix).
    package static func nearest(_ word: String, in names: [String]) -> String? {
        let prefixed = names.filter { $0.hasPrefix(word) }
        if prefixed.count == 1 { return prefixed[0] }
        let scored = names.map { ($0, EditDistance.between(word, $0)) }.sorted { ($0.1, $0.0) < ($1.1, $1.0) }
        guard let best = scored.first else { return nil }
        let allowed = max(1, min(3, word.count / 3))
        return best.1 <= allowed ? best.0 : nil
    }

    /// "a, b or c".
    private static func list(_ values: [String]) -> String {
        values.count < 2 ? values.joined() : values.dropLast().joined(separator: ", ") + " or " + values[values.count - 1]
    }

    /// A word as the hint echoes it: escaped, and a URL's password redacted (RFC 3986 7.5).
    private func shown(_ text: String) -> String {
        UntrustedText.escape(UntrustedText.redactingPassword(text), limit: 60)
    }
}
